// The connector's outcomes over the last hour: platform messages accepted and filtered, answers sent
// and failed, per minute, counted by the hub from the connector's log (GET /api/stats/connector).
import { useMemo } from 'react';
import { useHub } from '../../app/context';
import { Chart } from '../../components/charts/Chart';
import { toSeconds, type ChartSeries } from '../../components/charts/types';
import { Card, ErrorNote } from '../../components/ui';
import { useLiveStats } from '../../hooks/useLiveStats';

const COLORS: Record<string, string> = { accepted: '--chart-1', filtered: '--warn', sent: '--ok', failed: '--bad' };

export function OutcomesChart({ refreshKey }: { refreshKey: number }) {
  const { stats } = useHub();
  // The hub sends no frames about the connector: read on the page's refreshes and every 15 s.
  const outcomes = useLiveStats(() => stats.connector(60), [stats, refreshKey], { everyMs: 15_000 });
  const times = useMemo(() => (outcomes.data?.times ?? []).map(toSeconds), [outcomes.data]);
  const series = useMemo<ChartSeries[]>(
    () => (outcomes.data?.series ?? []).map((s) => ({ label: s.name, values: s.counts, color: COLORS[s.name] })),
    [outcomes.data],
  );
  const totals = (outcomes.data?.series ?? []).map((s) => `${s.counts.reduce((a, b) => a + b, 0)} ${s.name}`).join(' · ');
  return (
    <Card title="Outcomes, last hour" className="cx-outcomes">
      <ErrorNote error={outcomes.error} retry={outcomes.reload} />
      {outcomes.data ? (
        <>
          <p className="muted cx-outcomes-totals" data-testid="outcome-totals">
            {totals}
          </p>
          <Chart title="Connector outcomes per minute" times={times} series={series} kind="step" height={140} testId="outcomes-chart" />
        </>
      ) : null}
    </Card>
  );
}
