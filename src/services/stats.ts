// The series behind the dashboard's charts (GET /api/stats/...): counts and tallies from the store,
// one indexed query each, and presence and runtime from the in-memory logs. Nothing here returns raw
// history: each answer is already the picture's numbers.
import type { Clock } from '../clock.js';
import { TelemetryTypes } from '../protocol/messages.js';
import {
  isTalliedType,
  type CountSeries,
  type MessageRateQuery,
  type PresenceStrips,
  type ReportFields,
  type ReportFieldsQuery,
  type ReportTallies,
  type RuntimeSamples,
  type OnlineSeries,
  type TalliedType,
  type UnansweredSummary,
} from '../protocol/stats.js';
import type { StatsRepo } from '../store/repositories/stats.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { UserRow } from '../store/schema.js';
import type { PresenceLog } from './statsPresence.js';
import type { RuntimeSampler } from './statsRuntime.js';
import type { OnlineSampler } from './statsOnline.js';
import { toSeries, windowOf } from './statsSeries.js';

/** Connector log actions by the outcome a chart shows; other actions (lifecycle) are not drawn. */
export const CONNECTOR_OUTCOMES: Record<string, 'accepted' | 'filtered' | 'sent' | 'failed'> = {
  inbound_accepted: 'accepted',
  inbound_filtered: 'filtered',
  inbound_refused: 'filtered',
  inbound_dropped: 'filtered',
  inbound_duplicate: 'filtered',
  outbound_sent: 'sent',
  outbound_failed: 'failed',
  outbound_dropped: 'failed',
  inbound_failed: 'failed',
};
const OUTCOME_ORDER = ['accepted', 'filtered', 'sent', 'failed'] as const;
/** Agents drawn on the presence strips. */
const MAX_STRIPS = 200;

export interface StatsDeps {
  stats: StatsRepo;
  users: UsersRepo;
  presence: PresenceLog;
  runtime: Pick<RuntimeSampler, 'read'>;
  online: Pick<OnlineSampler, 'read'>;
  clock: Clock;
}

const visibleTo = (viewer: UserRow) => (viewer.role === 'ADMIN' ? undefined : viewer.id);

/** Numbers of one report payload worth plotting: its numeric fields and how many findings it lists. */
function numbersOf(payload: unknown): Array<[string, number]> {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return [];
  const out: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(payload)) {
    if (typeof value === 'number' && Number.isFinite(value)) out.push([key, value]);
    else if (key === 'findings' && Array.isArray(value)) out.push(['findings', value.length]);
  }
  return out;
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function createStatsService(deps: StatsDeps) {
  const { stats, clock } = deps;
  return {
    async messageRate(viewer: UserRow, query: MessageRateQuery): Promise<CountSeries> {
      const window = windowOf(clock(), query.minutes, query.bucket_minutes);
      const rows = await stats.messagesPerMinute({
        types: query.type ? [query.type] : TelemetryTypes,
        since: new Date(window.fromMs).toISOString(),
        senderName: query.agent_id,
        level: query.level,
        q: query.q,
        visibleTo: visibleTo(viewer),
      });
      return toSeries(window, rows);
    },

    async reportTallies(viewer: UserRow, minutes: number): Promise<ReportTallies> {
      const to = clock();
      const from = new Date(Date.parse(to) - minutes * 60_000).toISOString();
      const rows = await stats.reportTallies({ since: from, visibleTo: visibleTo(viewer) });
      const out: ReportTallies = { from, to, levels: {}, verdicts: {}, severities: {} };
      const bucket: Record<TalliedType, Record<string, number>> = { SYSTEM_LOG: out.levels, CODE_REVIEW: out.verdicts, SECURITY_ALERT: out.severities };
      for (const row of rows) {
        const into = isTalliedType(row.type) ? bucket[row.type] : undefined;
        const key = row.value ?? 'unknown';
        if (into) into[key] = (into[key] ?? 0) + row.n;
      }
      return out;
    },

    async reportFields(viewer: UserRow, query: ReportFieldsQuery): Promise<ReportFields> {
      const to = clock();
      const from = new Date(Date.parse(to) - query.minutes * 60_000).toISOString();
      const rows = await stats.payloads({ type: query.type, senderName: query.agent_id, since: from, limit: query.limit, visibleTo: visibleTo(viewer) });
      const series = new Map<string, { t: string; v: number }[]>();
      for (const row of rows) {
        const payload = parsePayload(row.payload);
        const location = payload && typeof payload === 'object' && 'location' in payload && typeof payload.location === 'string' ? payload.location : undefined;
        for (const [field, v] of numbersOf(payload)) {
          const name = location ? `${location} · ${field}` : field;
          let points = series.get(name);
          if (!points) series.set(name, (points = []));
          points.push({ t: row.created_at, v });
        }
      }
      return { from, to, series: [...series].map(([name, points]) => ({ name, points })).sort((a, b) => a.name.localeCompare(b.name)) };
    },

    async presence(hours: number): Promise<PresenceStrips> {
      const { rows } = await deps.users.list({ roles: ['AGENT'], offset: 0, limit: MAX_STRIPS });
      return deps.presence.strips(rows, hours);
    },

    async connectorOutcomes(query: { minutes: number; bucket_minutes: number }): Promise<CountSeries> {
      const window = windowOf(clock(), query.minutes, query.bucket_minutes);
      const current = await stats.currentConnectorId();
      const rows = current === undefined ? [] : await stats.connectorActionsPerMinute(current, new Date(window.fromMs).toISOString());
      return toSeries(window, rows, (action) => CONNECTOR_OUTCOMES[action], OUTCOME_ORDER);
    },

    runtime(): RuntimeSamples {
      return deps.runtime.read();
    },

    /** Agents online (and registered) over the last `minutes`, one point a minute. */
    online(minutes: number): Promise<OnlineSeries> {
      return deps.online.read(minutes);
    },

    async unanswered(viewer: UserRow): Promise<UnansweredSummary> {
      const rows = await stats.unanswered(viewer.id);
      const first = rows[0];
      const text = first ? parsePayload(first.payload) : undefined;
      return {
        oldest: first ? { peer_id: first.peer_id, id: first.id, text: typeof text === 'string' ? text : first.payload, timestamp: first.created_at } : null,
        conversations: rows.length,
        by_peer: rows.map((r) => ({ peer_id: r.peer_id, id: r.id, timestamp: r.created_at, waiting: r.waiting })),
      };
    },
  };
}
export type StatsService = ReturnType<typeof createStatsService>;
