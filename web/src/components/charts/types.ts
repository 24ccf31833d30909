// What a chart is given: one time axis and named series of numbers over it (null: no value there).

export interface ChartSeries {
  label: string;
  values: readonly (number | null)[];
  /** A palette slot (0–7) or a CSS colour variable name (`--ok`); slots go round in order otherwise. */
  color?: number | string;
}

export interface ChartProps {
  /** Said by the figure's caption and its table for screen readers. */
  title: string;
  /** Epoch seconds, oldest first. */
  times: readonly number[];
  series: readonly ChartSeries[];
  /** Bars for counts per bucket, lines for readings, steps for sampled levels. */
  kind?: 'bars' | 'line' | 'step';
  height?: number;
  /** After each value in the legend and the table (`ms`, `°C`). */
  unit?: string;
  /** The y axis starts at 0: yes for bars and steps (counts); lines (readings) only when asked (durations). */
  zero?: boolean;
  testId?: string;
}

/** Counts/readings as their table cell and legend text: whole numbers as they are, others to 2 decimals at most. */
export function formatValue(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  const text = Number.isInteger(value) ? value.toLocaleString('en-US') : Number(value.toFixed(Math.abs(value) >= 100 ? 0 : 2)).toLocaleString('en-US');
  return unit ? `${text} ${unit}` : text;
}

/** Epoch seconds with the milliseconds kept (two readings in one second stay two points). */
export const toSeconds = (iso: string) => Date.parse(iso) / 1000;
