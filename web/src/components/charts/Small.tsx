// The small pictures drawn without a charting library (they sit on the first page a user sees, so
// they cost nothing to load): a sparkline of counts and a tally of categories.
import { formatValue } from './types';
import './charts.css';

/** Counts per bucket as a line over a filled area; the label says the total for screen readers. */
export function Sparkline({
  values,
  label,
  width = 120,
  height = 28,
  testId,
}: {
  values: readonly number[];
  label: string;
  width?: number;
  height?: number;
  testId?: string;
}) {
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const y = (v: number) => height - 1 - (v / max) * (height - 2);
  const points = values.map((v, i) => `${(i * step).toFixed(1)},${y(v).toFixed(1)}`);
  const line = points.length > 0 ? `M${points.join('L')}` : '';
  const total = values.reduce((a, b) => a + b, 0);
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
      data-testid={testId}
      data-total={total}
      data-values={values.join(',')}
    >
      {line ? <path className="area" d={`${line}L${width},${height}L0,${height}Z`} /> : null}
      {line ? <path className="line" d={line} /> : null}
    </svg>
  );
}

/** Categories as bars with their counts, largest first. */
export function Tally({ counts, tone, testId, label }: { counts: Record<string, number>; tone: (key: string) => string; testId?: string; label: string }) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, n]) => n));
  if (entries.length === 0) return <p className="muted">None</p>;
  return (
    <div className="tally" data-testid={testId} aria-label={label} role="list">
      {entries.map(([key, n]) => (
        <div className="tally-row" key={key} role="listitem" data-key={key} data-count={n}>
          <span>{key}</span>
          <span className="tally-bar" aria-hidden>
            <span style={{ width: `${(n / max) * 100}%`, background: `var(${tone(key)})` }} />
          </span>
          <span className="tally-n">{formatValue(n)}</span>
        </div>
      ))}
    </div>
  );
}
