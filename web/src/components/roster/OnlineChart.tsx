// Agents online over the last hours as one stepped line (the hub's series, sampled once a minute),
// instead of a strip per agent: its size does not grow with the roster.
import type { OnlineSeries } from '@hub/client';
import { useMemo } from 'react';
import { Chart } from '../charts/Chart';
import { toSeconds } from '../charts/types';

export function OnlineChart({ series, height = 140 }: { series: OnlineSeries; height?: number }) {
  const times = useMemo(() => series.times.map(toSeconds), [series]);
  return (
    <Chart
      title="Agents online"
      kind="step"
      times={times}
      series={[{ label: 'online', values: series.online, color: '--ok' }]}
      height={height}
      testId="online-chart"
    />
  );
}
