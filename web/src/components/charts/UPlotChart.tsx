// The uPlot canvas behind <Chart>: sized to its container, coloured from the theme, rebuilt when the
// theme or the set of series changes and fed new data in place otherwise (uPlot's setData is cheap).
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { PALETTE, resolveColor, useThemeKey } from './colors';
import { formatValue, type ChartProps } from './types';

function useWidth(ref: React.RefObject<HTMLDivElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

const bars = uPlot.paths.bars!({ size: [0.7, 40], gap: 1 });
/** Counts have whole-number ticks, and a flat zero still gets an axis up to 1. */
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000];
const fromZero: uPlot.Scale.Range = (_u, _min, max) => [0, Math.max(1, max)];
const steps = uPlot.paths.stepped!({ align: 1 });
/** Readings seconds apart still get a time axis of minutes (uPlot would label fractions of a second). */
const MIN_SPAN_S = 600;
const atLeastMinutes: uPlot.Scale.Range = (_u, min, max) => (max - min >= MIN_SPAN_S ? [min, max] : [max - MIN_SPAN_S + 30, max + 30]);

function colorOf(color: number | string | undefined, index: number): string {
  const variable = typeof color === 'string' ? color : PALETTE[(color ?? index) % PALETTE.length]!;
  return resolveColor(variable);
}

function withAlpha(rgb: string, alpha: number): string {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  return m ? `rgba(${m[1]}, ${m[2]}, ${m[3]}, ${alpha})` : rgb;
}

export default function UPlotChart({ times, series, kind = 'line', height = 160, unit }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const width = useWidth(box);
  const theme = useThemeKey();
  const shape = series.map((s) => `${s.label}:${String(s.color)}`).join('|');
  const data = useMemo(() => [times as number[], ...series.map((s) => s.values as (number | null)[])] as uPlot.AlignedData, [times, series]);

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0) return;
    const text = resolveColor('--muted');
    const grid = resolveColor('--border');
    const axis: uPlot.Axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '11px system-ui, sans-serif' };
    const opts: uPlot.Options = {
      width,
      height,
      scales: { x: { time: true, range: atLeastMinutes }, ...(kind === 'line' ? {} : { y: { range: fromZero } }) },
      axes: [axis, { ...axis, size: 48, values: (_u, ticks) => ticks.map((v) => formatValue(v)), ...(kind === 'line' ? {} : { incrs: WHOLE_STEPS }) }],
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      legend: { live: true },
      series: [
        { value: (_u, v) => (v == null ? '–' : new Date(v * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })) },
        ...series.map((s, i): uPlot.Series => {
          const stroke = colorOf(s.color, i);
          return {
            label: s.label,
            stroke,
            width: kind === 'bars' ? 0 : 2,
            fill: kind === 'line' && series.length > 1 ? undefined : withAlpha(stroke, kind === 'bars' ? 0.85 : 0.15),
            paths: kind === 'bars' ? bars : kind === 'step' ? steps : undefined,
            points: { show: kind === 'line' && s.values.filter((v) => v !== null).length < 40 },
            spanGaps: kind === 'line',
            value: (_u, v) => formatValue(v, unit),
          };
        }),
      ],
    };
    plot.current = new uPlot(opts, data, el);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
    // Rebuilt only when the picture's frame changes; new numbers go through setData below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [width, height, theme, shape, kind, unit]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={box} className="chart-canvas" style={{ minHeight: height }} />;
}
