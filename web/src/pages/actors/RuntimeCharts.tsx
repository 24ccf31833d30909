// The hub's vital signs over the last hour, sampled by the hub every few seconds (GET /api/stats/runtime):
// open sockets, messages waiting for the group commit, and the worst event-loop delay between samples.
import type { RuntimeSamples } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../../app/context';
import { Chart } from '../../components/charts/Chart';
import { formatValue, toSeconds } from '../../components/charts/types';
import { ErrorNote } from '../../components/ui';
import { useAutoRefresh } from '../../hooks/useAutoRefresh';

type Sample = RuntimeSamples['samples'][number];

const PANELS: Array<{ key: keyof Omit<Sample, 't'>; title: string; unit?: string; kind: 'step' | 'line'; color: string }> = [
  { key: 'sockets', title: 'Open sockets', kind: 'step', color: '--chart-1' },
  { key: 'queue_depth', title: 'Group-commit queue', kind: 'step', color: '--chart-2' },
  { key: 'loop_lag_ms', title: 'Event-loop lag', unit: 'ms', kind: 'line', color: '--chart-4' },
];

export function RuntimeCharts({ paused, everyMs }: { paused: boolean; everyMs: number }) {
  const { stats } = useHub();
  const read = useAutoRefresh(() => stats.runtime(), [stats], { intervalMs: everyMs, paused });
  const samples = read.data?.samples;
  const times = useMemo(() => (samples ?? []).map((s) => toSeconds(s.t)), [samples]);
  return (
    <section className="ac-runtime" aria-label="The hub over the last hour">
      <ErrorNote error={read.error} retry={read.refresh} />
      {samples ? (
        <div className="ac-runtime-grid">
          {PANELS.map((p) => {
            const values = samples.map((s) => s[p.key]);
            const now = values.at(-1);
            return (
              <div className="card ac-runtime-panel" key={p.key}>
                <div className="ac-runtime-head">
                  <h2>{p.title}</h2>
                  <span className="ac-runtime-now" data-testid={`runtime-${p.key}`}>
                    {formatValue(now, p.unit)}
                  </span>
                </div>
                <Chart
                  title={p.title}
                  times={times}
                  series={[{ label: p.title, values, color: p.color }]}
                  kind={p.kind}
                  unit={p.unit}
                  zero
                  height={110}
                  testId={`runtime-chart-${p.key}`}
                />
              </div>
            );
          })}
        </div>
      ) : null}
    </section>
  );
}
