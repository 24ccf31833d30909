// One row of a check's table: what was asserted, what was measured, what was expected, and whether
// it held. Every figure comes from a measurement in the same run.
import { int } from '../../bench/lib/stats.js';

export interface Verdict {
  what: string;
  measured: string;
  expected: string;
  pass: boolean;
}

const show = (v: number) => (!Number.isFinite(v) ? '–' : Number.isInteger(v) ? int(v) : v.toFixed(v < 10 ? 2 : 1));

export const atMost = (what: string, measured: number, max: number, unit = ''): Verdict => ({
  what,
  measured: `${show(measured)}${unit}`,
  expected: `≤ ${show(max)}${unit}`,
  pass: Number.isFinite(measured) && measured <= max,
});

export const atLeast = (what: string, measured: number, min: number, unit = ''): Verdict => ({
  what,
  measured: `${show(measured)}${unit}`,
  expected: `≥ ${show(min)}${unit}`,
  pass: Number.isFinite(measured) && measured >= min,
});

export const equals = (what: string, measured: number | string, expected: number | string): Verdict => ({
  what,
  measured: typeof measured === 'number' ? show(measured) : measured,
  expected: typeof expected === 'number' ? show(expected) : expected,
  pass: measured === expected,
});

/** A figure shown for context, asserted on nothing. */
export const info = (what: string, measured: string): Verdict => ({ what, measured, expected: '–', pass: true });

/** A verdict that something happened or not, with its evidence. */
export const holds = (what: string, pass: boolean, measured: string, expected: string): Verdict => ({ what, measured, expected, pass });
