// Percentiles and number formatting for the report.

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentiles of `values` (sorted in place). */
export function percentiles(values: Float64Array | number[]): Percentiles {
  const sorted = values instanceof Float64Array ? values.sort() : Float64Array.from(values).sort();
  const n = sorted.length;
  if (n === 0) return { count: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  return { count: n, p50: at(0.5), p99: at(0.99), p999: at(0.999), max: sorted[n - 1]!, mean: sum / n };
}

/** A Float64Array that grows, for latency samples. */
export class Samples {
  private data = new Float64Array(1 << 16);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

export const round = (v: number, digits = 1) => (Number.isFinite(v) ? Number(v.toFixed(digits)) : v);

/** 12345.6 → "12,346". */
export const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');

/** Milliseconds with 2 significant decimals below 10 ms. */
export const ms = (v: number) => (!Number.isFinite(v) ? '–' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toString());
