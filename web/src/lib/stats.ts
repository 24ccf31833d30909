// The hub's chart series (GET /api/stats/...): each answer is already a picture's numbers, so no
// page downloads raw history to draw. Signed like the REST helper; a 401 ends the session the same way,
// and a 502/503/504 is read again for a few seconds first.
import { describeAnswer, HubRequestError } from '@hub/client';
import type {
  CountSeries,
  MessageRateQuery,
  PresenceStrips,
  ReportFields,
  ReportTallies,
  RuntimeSamples,
  UnansweredSummary,
} from '../../../src/protocol/stats';
import { withReadRetry } from './readRetry';
import type { SessionStore } from './session';

const retryingFetch = withReadRetry((input, init) => fetch(input, init));

export type { CountSeries, PresenceStrips, ReportFields, ReportTallies, RuntimeSamples, UnansweredSummary };
export type ReportType = 'WEATHER_UPDATE' | 'CODE_REVIEW' | 'SECURITY_ALERT';

type Query = Record<string, string | number | undefined>;

export interface StatsApi {
  messages(query?: Partial<MessageRateQuery>): Promise<CountSeries>;
  reports(minutes?: number): Promise<ReportTallies>;
  reportFields(agent: string, type: ReportType, minutes?: number): Promise<ReportFields>;
  presence(hours?: number): Promise<PresenceStrips>;
  connector(minutes?: number): Promise<CountSeries>;
  runtime(): Promise<RuntimeSamples>;
  unanswered(): Promise<UnansweredSummary>;
}

export function createStatsApi(session: SessionStore, base = window.location.origin): StatsApi {
  async function get<T>(path: string, query: Query = {}): Promise<T> {
    const url = new URL(`/api/stats/${path}`, base);
    for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
    const token = session.token();
    const res = await retryingFetch(url, { headers: { Accept: 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
    const body = (await res.json().catch(() => undefined)) as { error?: string } | undefined;
    if (res.status === 401 && token) session.signOut('Your session is no longer valid. Please sign in again.');
    if (!res.ok) {
      const hubError = typeof body?.error === 'string' ? body.error : undefined;
      const server = res.headers.get('server') ?? undefined;
      const message = hubError ?? `GET /api/stats/${path}: ${describeAnswer({ status: res.status, server })}`;
      throw new HubRequestError(res.status, message, 'GET', `/api/stats/${path}`, { hubError, server });
    }
    return body as T;
  }
  return {
    messages: (query = {}) => get('messages', query as Query),
    reports: (minutes) => get('reports', { minutes }),
    reportFields: (agent, type, minutes) => get('report-fields', { agent_id: agent, type, minutes }),
    presence: (hours) => get('presence', { hours }),
    connector: (minutes) => get('connector', { minutes }),
    runtime: () => get('runtime'),
    unanswered: () => get('unanswered'),
  };
}
