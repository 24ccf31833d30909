// The uPlot canvas behind <Chart>: sized to its container, coloured from the theme, rebuilt when the
// theme or the set of series changes and fed new data in place otherwise (uPlot's setData is cheap).
// The y axis has round ticks at both ends (scale.ts); the legend shows the latest point until hovered.
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { PALETTE, resolveColor, useThemeKey } from './colors';
import { latestIndex, niceScale, ticksFor, type Scale } from './scale';
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
/** uPlot's default height of the time axis under the plot. */
const X_AXIS_PX = 50;
const steps = uPlot.paths.stepped!({ align: 1 });
/** Readings seconds apart still get a time axis of minutes (uPlot would label fractions of a second). */
const MIN_SPAN_S = 600;
const atLeastMinutes: uPlot.Scale.Range = (_u, min, max) => (max - min >= MIN_SPAN_S ? [min, max] : [max - MIN_SPAN_S + 30, max + 30]);

function colorOf(color: number | string | undefined, index: number): string {
  const variable = typeof color === 'string' ? color : PALETTE[(color ?? index) % PALETTE.length]!;
  return resolveColor(variable);
}

const clock = (seconds: number) => new Date(seconds * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function withAlpha(rgb: string, alpha: number): string {
  const m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(rgb);
  return m ? `rgba(${m[1]}, ${m[2]}, ${m[3]}, ${alpha})` : rgb;
}

export default function UPlotChart({ times, series, kind = 'line', height = 160, unit, zero }: ChartProps) {
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
    // Counts and durations from 0 in whole or round steps; readings (temperatures) around their values.
    const yOptions = { zero: zero ?? kind !== 'line', whole: kind !== 'line' };
    const maxTicks = ticksFor(height - X_AXIS_PX);
    let y: Scale = niceScale(0, 1, maxTicks, yOptions);
    const opts: uPlot.Options = {
      width,
      height,
      scales: {
        x: { time: true, range: atLeastMinutes },
        y: { range: (_u, min, max) => (y = niceScale(min, max, maxTicks, yOptions)).range },
      },
      axes: [axis, { ...axis, size: 48, splits: () => y.ticks, values: (_u, ticks) => ticks.map((v) => formatValue(v)) }],
      cursor: { drag: { x: false, y: false }, points: { size: 6 } },
      legend: { live: true },
      // The ticks drawn, said on the box: the canvas has no text to read back (tests and tools read this).
      hooks: { draw: [() => el.setAttribute('data-y-ticks', y.ticks.join(','))] },
      series: [
        {
          // Not hovered: the time of the latest point with a value.
          value: (u, v, _s, idx) => {
            if (idx != null) return v == null ? '–' : clock(v);
            const at = latestIndex(u.data.slice(1) as Array<Array<number | null | undefined>>);
            return at === null ? '–' : `${clock(u.data[0][at]!)} (latest)`;
          },
        },
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
            // Not hovered: this series' own latest value (locations report at different times).
            value: (u, v, sidx, idx) => {
              if (idx != null) return formatValue(v, unit);
              const own = u.data[sidx] as Array<number | null | undefined>;
              const at = latestIndex([own]);
              return formatValue(at === null ? null : own[at], unit);
            },
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
  }, [width, height, theme, shape, kind, unit, zero]);

  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return <div ref={box} className="chart-canvas" style={{ minHeight: height }} />;
}
