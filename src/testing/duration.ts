// Durations as tests write them: '10m', '30s', '1.5h', '250ms', or a number of milliseconds.
export type Duration = number | string;

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds; throws a readable error for anything else. */
export function toMs(duration: Duration, what = 'duration'): number {
  if (typeof duration === 'number') {
    if (Number.isFinite(duration) && duration >= 0) return duration;
    throw new Error(`${what} must be 0 or more milliseconds, got ${duration}`);
  }
  const match = DURATION.exec(duration.trim());
  if (!match) throw new Error(`${what} "${duration}" is not a duration: write it like '10m', '30s', '250ms' or a number of milliseconds`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!.toLowerCase()]!);
}
