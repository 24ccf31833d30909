// Turning grouped per-minute counts into the columnar series a chart draws: fixed buckets from the
// window's start to now, zeros where nothing happened. Pure, so it is tested without a store.
import type { CountSeries } from '../protocol/stats.js';

const MINUTE_MS = 60_000;

export interface Window {
  fromMs: number;
  toMs: number;
  bucketMs: number;
}

/** The window ending at `now` (ISO), its start aligned down to a whole bucket. */
export function windowOf(now: string, minutes: number, bucketMinutes: number): Window {
  const bucketMs = bucketMinutes * MINUTE_MS;
  const toMs = Date.parse(now);
  const fromMs = Math.floor((toMs - minutes * MINUTE_MS) / bucketMs) * bucketMs + bucketMs;
  return { fromMs, toMs, bucketMs };
}

/** `rows` are `{ minute: 'YYYY-MM-DDTHH:MM', key, n }`; `names` maps a key to its series (undefined: dropped). */
export function toSeries(
  window: Window,
  rows: readonly { minute: string; key: string; n: number }[],
  names: (key: string) => string | undefined = (key) => key,
  fixed: readonly string[] = [],
): CountSeries {
  const { fromMs, toMs, bucketMs } = window;
  const buckets = Math.max(1, Math.ceil((toMs + 1 - fromMs) / bucketMs));
  const times = Array.from({ length: buckets }, (_, i) => new Date(fromMs + i * bucketMs).toISOString());
  const counts = new Map<string, number[]>(fixed.map((name) => [name, new Array<number>(buckets).fill(0)]));
  const total = new Array<number>(buckets).fill(0);
  for (const row of rows) {
    const name = names(row.key);
    if (name === undefined) continue;
    const at = Date.parse(`${row.minute}:00.000Z`);
    const index = Math.floor((at - fromMs) / bucketMs);
    if (index < 0 || index >= buckets) continue;
    let series = counts.get(name);
    if (!series) counts.set(name, (series = new Array<number>(buckets).fill(0)));
    series[index]! += row.n;
    total[index]! += row.n;
  }
  const series = [...counts].map(([name, values]) => ({ name, counts: values }));
  if (fixed.length === 0) series.sort((a, b) => a.name.localeCompare(b.name));
  return { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), bucket_seconds: bucketMs / 1000, times, series, total };
}
