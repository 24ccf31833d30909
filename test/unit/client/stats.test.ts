// The REST helper's chart series (GET /api/stats/...), which the dashboard reads through: each call's
// path and query as the hub's stats routes take them, signed, over a scripted fetch (the network).
import { describe, expect, it } from 'vitest';
import { createRestClient } from '../../../src/client/rest.js';
import { ReportTypes } from '../../../src/protocol/messages.js';

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
}

/** A REST client whose requests are recorded and answered `{}`. */
function recordingRest() {
  const seen: Seen[] = [];
  const fetch = (async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    seen.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: new Headers(init?.headers).get('authorization'),
    });
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { rest: createRestClient({ url: 'http://hub.test', token: () => 'jwt-1', fetch }), seen };
}

describe('REST helper: chart series', () => {
  it('reads each series by GET with its query, leaving out what was not given', async () => {
    const { rest, seen } = recordingRest();
    await rest.stats.messages({ minutes: 60, agent_id: 'weather', level: undefined, type: 'SYSTEM_LOG' });
    await rest.stats.messages();
    await rest.stats.reports(1440);
    await rest.stats.reportFields('weather', 'WEATHER_UPDATE', 120);
    await rest.stats.reportFields('reviewer', 'CODE_REVIEW');
    await rest.stats.presence(6);
    await rest.stats.connector(60);
    await rest.stats.runtime();
    await rest.stats.unanswered();
    expect(seen.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: 'GET', path: '/api/stats/messages', query: { minutes: '60', agent_id: 'weather', type: 'SYSTEM_LOG' } },
      { method: 'GET', path: '/api/stats/messages', query: {} },
      { method: 'GET', path: '/api/stats/reports', query: { minutes: '1440' } },
      { method: 'GET', path: '/api/stats/report-fields', query: { agent_id: 'weather', type: 'WEATHER_UPDATE', minutes: '120' } },
      { method: 'GET', path: '/api/stats/report-fields', query: { agent_id: 'reviewer', type: 'CODE_REVIEW' } },
      { method: 'GET', path: '/api/stats/presence', query: { hours: '6' } },
      { method: 'GET', path: '/api/stats/connector', query: { minutes: '60' } },
      { method: 'GET', path: '/api/stats/runtime', query: {} },
      { method: 'GET', path: '/api/stats/unanswered', query: {} },
    ]);
    expect(new Set(seen.map((s) => s.authorization))).toEqual(new Set(['Bearer jwt-1']));
  });

  it('takes each report type for its fields', async () => {
    const { rest, seen } = recordingRest();
    for (const type of ReportTypes) await rest.stats.reportFields('agent', type);
    expect(seen.map((s) => s.query['type'])).toEqual([...ReportTypes]);
  });
});
