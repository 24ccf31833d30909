// The y axis of a chart as a person reads it: from 0 (counts, durations) or from a round number below
// the lowest reading, to a round number above the highest, with ticks at round steps that always
// include both ends, so a chart of small numbers is never left with a lone `0`. And what the legend
// says while the pointer is elsewhere: the latest point, not dashes. Pure, so it is tested without a browser.

/** 1, 2, 5 × 10^k: steps a reader adds up without effort. */
function roundStep(raw: number, whole: boolean): number {
  const floor = whole ? 1 : 0;
  if (!(raw > 0)) return Math.max(1, floor);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw - 1e-12)!;
  return Math.max(step, floor);
}

/** The round step after this one: 1 → 2 → 5 → 10. */
function nextStep(step: number): number {
  const power = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const m = Math.round(step / power);
  return (m < 2 ? 2 : m < 5 ? 5 : 10) * power;
}

/** The decimals a step needs, so 0.1 + 0.2 shows as 0.3. */
const decimalsOf = (step: number) => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

export interface Scale {
  range: [number, number];
  ticks: number[];
}

/**
 * A range of round numbers around `min`…`max` with at most `maxTicks` ticks (at least 2: the ends).
 * `zero`: the range starts at 0 (or below, for negative values); `whole`: steps of 1 or more (counts).
 */
export function niceScale(min: number | null | undefined, max: number | null | undefined, maxTicks: number, options: { zero: boolean; whole: boolean }): Scale {
  let lo = min ?? 0;
  let hi = max ?? lo;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 0];
  if (options.zero) [lo, hi] = [Math.min(0, lo), Math.max(0, hi)];
  // A flat line still gets a scale: one step above it (or around it, away from zero).
  if (hi === lo) {
    if (options.zero || lo === 0) hi = lo + 1;
    else [lo, hi] = [lo - Math.abs(lo) * 0.1, hi + Math.abs(hi) * 0.1];
  }
  const intervals = Math.max(1, Math.floor(maxTicks) - 1);
  let step = roundStep((hi - lo) / intervals, options.whole);
  let from = Math.floor(lo / step + 1e-9) * step;
  let to = Math.ceil(hi / step - 1e-9) * step;
  // Rounding out can need one interval more than allowed: the next round step then.
  while ((to - from) / step > intervals + 1e-9) {
    step = nextStep(step);
    from = Math.floor(lo / step + 1e-9) * step;
    to = Math.ceil(hi / step - 1e-9) * step;
  }
  const decimals = decimalsOf(step);
  const count = Math.round((to - from) / step);
  const ticks = Array.from({ length: count + 1 }, (_, i) => Number((from + i * step).toFixed(decimals)));
  return { range: [ticks[0]!, ticks.at(-1)!], ticks };
}

/** How many ticks fit a plot area this many CSS pixels high (one every 24 px or more, 2 to 6). */
export function ticksFor(plotHeight: number): number {
  return Math.max(2, Math.min(6, Math.floor(plotHeight / 24) + 1));
}

/** The index the legend shows while the pointer is not over the chart: the latest with a value in any series. */
export function latestIndex(series: ReadonlyArray<ReadonlyArray<number | null | undefined>>): number | null {
  const length = Math.max(0, ...series.map((s) => s.length));
  for (let i = length - 1; i >= 0; i--) if (series.some((s) => s[i] !== null && s[i] !== undefined)) return i;
  return null;
}
