// Input validation over the HTTP app alone (fake services, no store): every declared params, query
// and body schema is applied to its part of the request, a refusal is a 400 naming the field (the
// texts of wire.md §1), and a refused request never reaches a service.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HubError } from '../../../src/errors.js';
import { API_ROUTES } from '../../../src/http/routes/index.js';
import { startFakeApp, TOKENS, type FakeApp } from '../../helpers/fakeApp.js';
import { SAMPLE_BODIES, SAMPLE_QUERIES } from '../../helpers/routeSamples.js';
import { concrete } from '../../helpers/routes.js';

/** What reading `raw` with a route's reader throws: the 400 text, or undefined when it is accepted. */
function refusal(read: ((raw: unknown) => unknown) | undefined, raw: unknown): string | undefined {
  try {
    read?.(raw);
    return undefined;
  } catch (err) {
    if (err instanceof HubError && err.status === 400) return err.message;
    throw err;
  }
}

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
const url = (path: string) => concrete(path, 4, 'agent-1');
const WITH_BODY = API_ROUTES.filter((r) => r.read.body);
const WITH_ID = API_ROUTES.filter((r) => r.params && 'id' in r.params.shape);
const WITH_LIMIT = API_ROUTES.filter((r) => r.query && 'limit' in r.query.shape);
/** Routes that list at most their cap whatever limit is asked, as the older hub's did (wire compatibility). */
const CAPPED_LIMIT = new Set(['GET /api/users/ops/tasks']);
const NO_INPUT = API_ROUTES.filter((r) => !r.read.body && !r.read.query && r.method !== 'GET');

describe('HTTP input validation (fake services)', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.stop());
  beforeEach(() => app.reset());

  const send = (method: string, path: string, options: { body?: unknown; rawBody?: string } = {}) =>
    app.api.request(method, path, { token: TOKENS.admin, ...options });

  it('finds the routes that read input', () => {
    expect(WITH_BODY.length).toBeGreaterThan(20);
    expect(WITH_ID.length).toBeGreaterThan(15);
    expect(WITH_LIMIT.map(key)).toEqual(expect.arrayContaining(['GET /api/messages', 'GET /api/users', 'GET /api/chat/threads/:id/messages']));
  });

  describe.each(WITH_BODY)('$method $path body', (route) => {
    it('is refused unless it is a JSON object, and unless it is JSON', async () => {
      for (const body of [[], 'text', 42, null]) {
        expect(await send(route.method, url(route.path), { body }), JSON.stringify(body)).toMatchObject({
          status: 400,
          body: { error: 'request body must be a JSON object' },
        });
      }
      expect(await send(route.method, url(route.path), { rawBody: '{"level":' })).toMatchObject({ status: 400, body: { error: 'invalid request body' } });
      expect(app.calls).toEqual([]);
    });

    it('names what an empty object lacks, or takes it', async () => {
      const expected = refusal(route.read.body, {});
      const res = await send(route.method, url(route.path), { body: {} });
      if (expected) {
        expect(res).toMatchObject({ status: 400, body: { error: expected } });
        expect(app.calls).toEqual([]);
      } else {
        expect(res.status, JSON.stringify(res.body)).not.toBe(400);
      }
    });

    it('names each field of the wrong type', async () => {
      const sample = SAMPLE_BODIES[key(route)];
      if (!sample || typeof sample !== 'object') return;
      for (const field of Object.keys(sample)) {
        const body = { ...sample, [field]: { nested: true } };
        const expected = refusal(route.read.body, body);
        expect(expected, `${field} as an object`).toMatch(new RegExp(`^${field}`));
        expect(await send(route.method, url(route.path), { body }), field).toMatchObject({ status: 400, body: { error: expected } });
      }
      expect(app.calls).toEqual([]);
    });
  });

  it.each(WITH_ID)('$method $path: an id that is not a positive whole number is a 400 naming id', async (route) => {
    for (const id of ['abc', '0', '1.5']) {
      const res = await send(route.method, route.path.replace(':id', id), { body: SAMPLE_BODIES[key(route)] ?? {} });
      expect(res.status, id).toBe(400);
      expect(res.body.error, id).toMatch(/^id /);
    }
    expect(app.calls).toEqual([]);
  });

  it.each(WITH_LIMIT)('$method $path: a limit out of range or not a number is a 400 naming limit', async (route) => {
    // The route's other required fields, when it has any, are given: the refusal is about limit alone.
    const required = new URLSearchParams(SAMPLE_QUERIES[key(route)] ?? '');
    for (const limit of CAPPED_LIMIT.has(`${route.method} ${route.path}`) ? ['0', 'abc'] : ['0', 'abc', '100000']) {
      const query = new URLSearchParams(required);
      query.set('limit', limit);
      const res = await send(route.method, `${url(route.path)}?${query}`);
      expect(res.status, limit).toBe(400);
      expect(res.body.error, limit).toBe(refusal(route.read.query, Object.fromEntries(query)));
      expect(res.body.error, limit).toMatch(/^limit /);
    }
    expect(app.calls).toEqual([]);
  });

  it.each(NO_INPUT)('$method $path reads no body: whatever is sent is not refused as input', async (route) => {
    const res = await send(route.method, url(route.path), { body: { anything: [1, 2, 3] } });
    expect(res.status).not.toBe(400);
  });

  it('says which required fields are missing, in the schema order, at most three', async () => {
    expect(await send('POST', '/api/auth/login', { body: {} })).toMatchObject({ status: 400, body: { error: 'username is required; password is required' } });
    expect(await send('POST', '/api/users', { body: { password: 'long-enough' } })).toMatchObject({ status: 400, body: { error: 'username is required' } });
    expect(await send('POST', '/api/dev/mock/feishu-log', { body: { level: ' ', action: ' ', detail: ' ' } })).toMatchObject({
      status: 400,
      body: { error: 'level is required; action is required; detail is required' },
    });
    expect(await send('POST', '/api/messages', { body: { level: 'INFO' } })).toMatchObject({ status: 400, body: { error: 'content is required' } });
    expect(await send('POST', '/api/messages', { body: { type: 'SYSTEM_LOG' } })).toMatchObject({ status: 400, body: { error: 'payload is required' } });
    expect(await send('POST', '/api/chat/auth/response', { body: { approved: true } })).toMatchObject({
      status: 400,
      body: { error: 'action_id is required' },
    });
    expect(app.calls).toEqual([]);
  });

  it('reads params before the query and the query before the body', async () => {
    const both = await send('PATCH', '/api/users/abc', { body: { role: 'KING' } });
    expect(both.body.error).toMatch(/^id /);
    const history = await send('GET', '/api/chat/history/abc?limit=0');
    expect(history.body.error).toMatch(/^peer_id /);
    expect((await send('GET', '/api/chat/history/2?limit=0')).body.error).toMatch(/^limit /);
  });

  it('reads a connector body with camelCase keys as snake_case, and names the snake_case field', async () => {
    const res = await send('POST', '/api/integrations/feishu', { body: { appId: 42 } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^app_id /);
    const version = await send('PATCH', '/api/integrations/chatplatform/1', { body: { version: 0, appId: 42 } });
    expect(version.status).toBe(400);
    expect(version.body.error).toMatch(/^version /);
  });

  it('does not read the WebSocket query on a plain request: 426 whatever it sent', async () => {
    const res = await app.api.get('/api/ws?since=not-a-number&token=a');
    expect(res).toMatchObject({ status: 426, body: { error: expect.any(String) } });
    expect(res.headers.get('upgrade')).toBe('websocket');
  });

  it('drops fields a body schema does not name before the handler sees the body', async () => {
    expect((await send('POST', '/api/users', { body: { username: 'newbie', is_admin: true, role: 'MEMBER' } })).status).toBe(201);
    expect(app.callsOf('users.createHuman')).toEqual([[{ username: 'newbie', role: 'MEMBER' }]]);
  });
});
