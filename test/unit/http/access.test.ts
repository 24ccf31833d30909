// The access matrix over the HTTP app alone (fake services, no store): every route × anonymous,
// member, agent, Butler and admin, with the exact refusals, and the refusal coming before any input
// is read or any service is called.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeApp, TOKENS, type Caller, type FakeApp } from '../../helpers/fakeApp.js';
import { NON_SUCCESS_ANSWERS, SAMPLE_BODIES, SAMPLE_QUERIES } from '../../helpers/routeSamples.js';
import {
  A2A_ROUTES,
  ACCESS_TOKEN_ROUTES,
  CHAT_ACCESS_ROUTES,
  concrete,
  CONNECTOR_ROUTES,
  OPS_ROUTES,
  ROUTES,
  STATS_ROUTES,
  type RouteSpec,
} from '../../helpers/routes.js';

const ALL: readonly RouteSpec[] = [
  ...ROUTES,
  ...ACCESS_TOKEN_ROUTES,
  ...CHAT_ACCESS_ROUTES,
  ...CONNECTOR_ROUTES,
  ...OPS_ROUTES,
  ...STATS_ROUTES,
  ...A2A_ROUTES,
];
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const THREADS_REFUSAL = 'only human users have conversation threads';

/** What a caller gets: 'served' (the handler ran), or the refusal's status and text. */
function expected(route: RouteSpec, caller: Caller | 'anonymous'): 'served' | { status: number; error: string } {
  if (route.access === 'public') return 'served';
  if (caller === 'anonymous') return { status: 401, error: 'authorization header required' };
  const machine = caller === 'agent' || caller === 'butler';
  switch (route.access) {
    case 'authenticated':
    case 'cards':
      return 'served';
    case 'human':
      return machine ? { status: 403, error: route.machineRefusal ?? THREADS_REFUSAL } : 'served';
    case 'admin':
    case 'admin-non-production':
      return caller === 'admin' ? 'served' : { status: 403, error: 'admin access required' };
  }
}

function send(app: FakeApp, route: RouteSpec, caller: Caller | 'anonymous', body: unknown = SAMPLE_BODIES[key(route)] ?? {}) {
  return app.api.request(route.method, concrete(route.path, 4, 'agent-1') + (SAMPLE_QUERIES[key(route)] ?? ''), {
    token: caller === 'anonymous' ? undefined : TOKENS[caller],
    body,
  });
}

describe('HTTP access matrix (fake services)', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.stop());
  beforeEach(() => app.reset());

  it('mounts exactly the routes the matrix walks, plus /metrics', () => {
    expect(app.routes.map(key).sort()).toEqual([...ALL.map(key), 'GET /metrics'].sort());
  });

  describe.each(ALL)('$method $path ($access)', (route) => {
    it.each(['anonymous', 'member', 'agent', 'butler', 'admin'] as const)('as %s', async (caller) => {
      const want = expected(route, caller);
      const res = await send(app, route, caller);
      if (want === 'served') {
        const status = NON_SUCCESS_ANSWERS[key(route)];
        if (status !== undefined) expect(res.status).toBe(status);
        else expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(200);
        if (status === undefined) expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      } else {
        expect({ status: res.status, body: res.body }).toEqual({ status: want.status, body: { error: want.error } });
        expect(app.calls).toEqual([]);
      }
    });
  });

  it('refuses before reading the input: a member sending a bad body to an admin route gets 403, not 400', async () => {
    const res = await app.api.post('/api/users', { username: 42 }, { token: TOKENS.member });
    expect(res).toMatchObject({ status: 403, body: { error: 'admin access required' } });
    const machine = await app.api.post('/api/chat/threads', { peer_id: 'x' }, { token: TOKENS.agent });
    expect(machine).toMatchObject({ status: 403, body: { error: THREADS_REFUSAL } });
    expect(app.calls).toEqual([]);
  });

  it('refuses an unknown token and a header that is not `Bearer <token>` with 401; the scheme may be any case', async () => {
    const get = (authorization: string) => app.api.get('/api/users/butler', { headers: { Authorization: authorization } });
    expect(await get('Bearer nobody')).toMatchObject({ status: 401, body: { error: 'invalid token' } });
    expect(await get('Token admin-token')).toMatchObject({ status: 401, body: { error: 'invalid authorization header format' } });
    expect(await get('Bearer')).toMatchObject({ status: 401, body: { error: 'invalid authorization header format' } });
    expect((await get('bearer admin-token')).status).toBe(200);
    expect(app.calls.map((c) => c.name)).toEqual(['agents.butler']);
  });

  it('answers an unknown API route with the 404 of no route, whoever asks', async () => {
    expect(await app.api.get('/api/nothing-here', { token: TOKENS.admin })).toMatchObject({ status: 404, body: { error: 'not found' } });
    expect(await app.api.get('/api/nothing-here')).toMatchObject({ status: 404, body: { error: 'not found' } });
  });
});

describe('HTTP access in production (fake services)', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp({ isProduction: true });
  });
  afterAll(() => app.stop());
  beforeEach(() => app.reset());

  it.each(ROUTES.filter((r) => r.access === 'admin-non-production'))('refuses $method $path to an admin and a member alike', async (route) => {
    for (const caller of ['admin', 'member'] as const) {
      const res = await send(app, route, caller);
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { error: 'mock endpoints are disabled in production' } });
    }
    expect((await send(app, route, 'anonymous')).status).toBe(401);
    expect(app.calls).toEqual([]);
  });

  it('still serves the admin routes to an admin', async () => {
    for (const route of ALL.filter((r) => r.access === 'admin' && r.method === 'GET')) {
      expect((await send(app, route, 'admin')).status, key(route)).toBe(200);
    }
  });
});

describe('GET /metrics access', () => {
  it('is public when no METRICS_TOKEN is set (and 404 while metrics are disabled)', async () => {
    const app = await startFakeApp();
    try {
      expect(await app.api.get('/metrics')).toMatchObject({ status: 404 });
    } finally {
      app.stop();
    }
  });

  it('asks for METRICS_TOKEN as a bearer token when set, before saying metrics are disabled', async () => {
    const app = await startFakeApp({ metricsToken: 'scrape-secret' });
    try {
      expect(await app.api.get('/metrics')).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
      expect(await app.api.get('/metrics', { token: TOKENS.admin })).toMatchObject({ status: 401, body: { error: 'invalid token' } });
      expect((await app.api.get('/metrics', { headers: { Authorization: 'scrape-secret' } })).status).toBe(401);
      expect((await app.api.get('/metrics', { token: 'scrape-secret' })).status).toBe(404);
    } finally {
      app.stop();
    }
  });

  it('serves the text exposition when enabled', async () => {
    const app = await startFakeApp({ metricsEnabled: true, metricsToken: 'scrape-secret' });
    try {
      const res = await app.api.get('/metrics', { token: 'scrape-secret' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(String(res.body)).toContain('process_cpu_user_seconds_total');
    } finally {
      app.stop();
    }
  });
});
