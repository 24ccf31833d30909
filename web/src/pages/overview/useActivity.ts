// What the Overview draws besides the live list: each agent's messages per minute over the last hour
// and the reports of the last day tallied (agents online over time: useOnlineSeries). Read from the hub's
// series and again as telemetry or presence arrives (settled, so a busy hub is a read a second).
import { isTelemetryType, type ServerFrame } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../../app/context';
import { useLiveStats } from '../../hooks/useLiveStats';

export const RATE_MINUTES = 60;

const telemetry = (frame: ServerFrame) => isTelemetryType(frame.type);

export function useActivity() {
  const { stats } = useHub();
  const rate = useLiveStats(() => stats.messages({ minutes: RATE_MINUTES }), [stats], { when: telemetry });
  const reports = useLiveStats(() => stats.reports(24 * 60), [stats], { when: telemetry, settleMs: 2000 });

  const rates = useMemo(() => new Map((rate.data?.series ?? []).map((s) => [s.name, s.counts])), [rate.data]);
  return { rate, rates, reports };
}
