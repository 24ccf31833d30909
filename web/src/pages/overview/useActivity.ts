// What the Overview draws besides the live list: each agent's messages per minute over the last hour,
// its online spans over the last hours, and the reports of the last day tallied. Read from the hub's
// series and again as telemetry or presence arrives (settled, so a busy hub is a read a second).
import { isTelemetryType, type ServerFrame } from '@hub/client';
import { useMemo } from 'react';
import { useHub } from '../../app/context';
import { useLiveStats } from '../../hooks/useLiveStats';
import type { Span } from '../../components/charts/Small';

export const RATE_MINUTES = 60;
export const STRIP_HOURS = 6;

export interface Strip {
  spans: Span[];
  from: number;
  to: number;
  knownFrom: number;
}

const telemetry = (frame: ServerFrame) => isTelemetryType(frame.type);
const presence = (frame: ServerFrame) => frame.type === 'PRESENCE';

export function useActivity() {
  const { stats } = useHub();
  const rate = useLiveStats(() => stats.messages({ minutes: RATE_MINUTES }), [stats], { when: telemetry });
  const presenceStrips = useLiveStats(() => stats.presence(STRIP_HOURS), [stats], { when: presence, settleMs: 300 });
  const reports = useLiveStats(() => stats.reports(24 * 60), [stats], { when: telemetry, settleMs: 2000 });

  const rates = useMemo(() => new Map((rate.data?.series ?? []).map((s) => [s.name, s.counts])), [rate.data]);
  const stripsById = useMemo(() => {
    const map = new Map<number, Strip>();
    const data = presenceStrips.data;
    if (!data) return map;
    const from = Date.parse(data.from);
    const to = Date.parse(data.to);
    const knownFrom = Date.parse(data.known_from);
    for (const agent of data.agents) {
      map.set(agent.id, { from, to, knownFrom, spans: agent.online.map((s) => ({ from: Date.parse(s.from), to: s.to ? Date.parse(s.to) : to })) });
    }
    return map;
  }, [presenceStrips.data]);
  return { rate, rates, presence: presenceStrips, strips: stripsById, reports };
}
