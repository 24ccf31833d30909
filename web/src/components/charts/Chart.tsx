// A chart, with uPlot loaded only when a page first draws one (it stays out of the first load), and a
// table of the same numbers for screen readers (and for anyone who would rather read them).
import { Suspense } from 'react';
import { lazyWithRetry } from '../../lib/retryImport';
import { formatValue, type ChartProps } from './types';
import './charts.css';

const UPlotChart = lazyWithRetry(() => import('./UPlotChart'));

export function Chart(props: ChartProps) {
  const height = props.height ?? 160;
  return (
    <figure className="chart" data-testid={props.testId} aria-label={props.title}>
      <Suspense fallback={<div className="chart-placeholder" style={{ height }} aria-hidden />}>
        <UPlotChart {...props} height={height} />
      </Suspense>
      <ChartTable {...props} />
    </figure>
  );
}

/** The chart's numbers as a table, visually hidden; rows with nothing (no value, or no count) are left out. */
function ChartTable({ title, times, series, unit, kind }: ChartProps) {
  const empty = (v: number | null | undefined) => v === null || v === undefined || (kind === 'bars' && v === 0);
  const time = (s: number) => new Date(s * 1000).toISOString().slice(11, 16);
  return (
    // Hidden by its wrapper: a table is never narrower than its cells, whatever width it is given.
    <div className="sr-only">
      <table className="chart-table">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Time (UTC)</th>
            {series.map((s) => (
              <th scope="col" key={s.label}>
                {s.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {times.map((t, i) =>
            series.every((s) => empty(s.values[i])) ? null : (
              <tr key={t} data-time={new Date(t * 1000).toISOString()}>
                <th scope="row">{time(t)}</th>
                {series.map((s) => (
                  <td key={s.label} data-series={s.label} data-value={s.values[i] ?? ''}>
                    {formatValue(s.values[i], unit)}
                  </td>
                ))}
              </tr>
            ),
          )}
        </tbody>
      </table>
    </div>
  );
}
