// Agents online over time, for the dashboard's chart: the hub node reads the roster's counts (one
// grouped query over an index) once a minute and keeps a day of them in memory. In memory, not in
// the store: 1,440 pairs of numbers cost nothing to hold, every node of a cluster samples the same
// shared store so any node draws the same curve, and a store table would need its own retention and
// one writer elected among the nodes. What that costs: a restarted node starts its curve again
// (`known_from` says since when).
import type { Clock } from '../clock.js';
import type { OnlineSeries } from '../protocol/stats.js';

export interface OnlineCounts {
  online: number;
  total: number;
}

export interface OnlineSamplerOptions {
  /** The counts now (from the store, so the whole cluster's). */
  count(): Promise<OnlineCounts>;
  clock: Clock;
  onError(err: unknown): void;
  intervalMs?: number;
  /** Samples kept (the oldest go first): a day by the minute. */
  keep?: number;
}

interface Sample extends OnlineCounts {
  t: string;
}

export function createOnlineSampler(options: OnlineSamplerOptions) {
  const { clock } = options;
  const intervalMs = options.intervalMs ?? 60_000;
  const keep = options.keep ?? 1440;
  const samples: Sample[] = [];
  let knownFrom: string | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function sample(): Promise<void> {
    const t = clock();
    const counts = await options.count();
    knownFrom ??= t;
    samples.push({ t, ...counts });
    if (samples.length > keep) samples.splice(0, samples.length - keep);
  }
  const tick = () => void sample().catch(options.onError);

  return {
    start(): void {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    /** Takes one sample now (tests). */
    sample,
    /** The samples of the last `minutes`, oldest first, and the counts now as the last point. */
    async read(minutes: number): Promise<OnlineSeries> {
      const now = clock();
      const current = await options.count();
      const from = Date.parse(now) - minutes * 60_000;
      const kept = samples.filter((s) => Date.parse(s.t) >= from);
      const points = [...kept, { t: now, ...current }];
      return {
        interval_ms: intervalMs,
        known_from: knownFrom ?? now,
        times: points.map((p) => p.t),
        online: points.map((p) => p.online),
        registered: points.map((p) => p.total),
      };
    },
  };
}
export type OnlineSampler = ReturnType<typeof createOnlineSampler>;
