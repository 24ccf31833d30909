// No input makes the hub answer 500 or fall over: every route gets hostile bodies, queries and
// path parameters, and must answer with a client error (or success) every time.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { eachLimited } from '../helpers/limited.js';
import { ROUTES } from '../helpers/routes.js';

const NUL = '\u0000';
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  -1,
  0,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  '',
  ' ',
  NUL,
  `a${NUL}b`,
  '%_\\',
  "'; DROP TABLE users; --",
  '😀'.repeat(40),
  'x'.repeat(70_000),
  [],
  ['a', 1],
  {},
  { nested: { deeper: [1, { x: NUL }] } },
];
const FIELDS = [
  'username',
  'password',
  'role',
  'api_token',
  'agent_kind',
  'description',
  'agent_id',
  'level',
  'content',
  'type',
  'payload',
  'target_id',
  'sender_username',
  'receiver_username',
  'conversation_id',
  'local_id',
  'enabled',
];
const PATH_VALUES = ['0', '-5', 'abc', '1e3', '99999999999999999999', '%00', '%F0%9F%98%80', 'Butler%00'];
const QUERY_KEYS = ['limit', 'page', 'offset', 'before_id', 'q', 'role', 'level', 'type', 'agent_id', 'exclude_role'];

describeEachDriver('hostile input', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('never answers 500 to any body on any route', async () => {
    const failures: string[] = [];
    const cases: Array<{ method: string; path: string; body?: unknown; rawBody?: string; label: string }> = [];
    for (const route of ROUTES.filter((r) => r.method !== 'GET' && !r.path.endsWith('/reset'))) {
      const path = route.path.replace(':id', '3').replace(':username', 'Butler');
      for (const field of FIELDS) {
        for (const value of HOSTILE_VALUES)
          cases.push({ method: route.method, path, body: { [field]: value }, label: `{${field}: ${JSON.stringify(value)?.slice(0, 40)}}` });
      }
      for (const raw of ['{', '[', 'nul\u0000', '{"a":1}{"b":2}', '\u00ff\u00fe', '{"__proto__":{"admin":true}}']) {
        cases.push({ method: route.method, path, rawBody: raw, label: `raw ${JSON.stringify(raw)}` });
      }
    }
    await eachLimited(cases, 8, async (c) => {
      const res = await t.api.request(c.method, c.path, { token: t.adminToken, body: c.body, rawBody: c.rawBody });
      if (res.status >= 500) failures.push(`${c.method} ${c.path} ${c.label} → ${res.status}`);
    });
    expect(failures).toEqual([]);
    expect((await t.api.get('/api/ping')).status).toBe(200);
  });

  it('never answers 500 to any path parameter or query', async () => {
    const failures: string[] = [];
    const cases: Array<{ method: string; url: string }> = [];
    for (const route of ROUTES.filter((r) => !r.path.endsWith('/reset'))) {
      const paths = route.path.includes(':') ? PATH_VALUES.map((v) => route.path.replace(/:(id|username)/, v)) : [route.path];
      for (const path of paths) {
        for (const key of QUERY_KEYS) {
          for (const value of ['-1', 'abc', '%00', '%25', '1e400', '', '9'.repeat(30), 'x'.repeat(300)]) {
            cases.push({ method: route.method, url: `${path}?${key}=${value}&${key}=2` });
          }
        }
      }
    }
    await eachLimited(cases, 8, async ({ method, url }) => {
      const res = await t.api.request(method, url, { token: t.adminToken, body: method === 'GET' ? undefined : {} });
      if (res.status >= 500) failures.push(`${method} ${url} → ${res.status}`);
    });
    expect(failures).toEqual([]);
  });

  it('never answers 500 when the other fields are valid and one is hostile', async () => {
    const valid: Record<string, Record<string, unknown>> = {
      '/api/auth/login': { username: 'admin', password: 'admin-password' },
      '/api/users': { username: 'fuzz-user', password: 'long-enough' },
      '/api/users/agents': { username: 'fuzz-agent' },
      '/api/messages': { level: 'INFO', content: 'fuzz' },
      '/api/dev/mock/chat': { sender_username: 'admin', receiver_username: 'Butler', content: 'fuzz' },
      '/api/users/agents/test-connection': { api_token: 'not-a-token-at-all' },
    };
    const failures: string[] = [];
    for (const [path, body] of Object.entries(valid)) {
      for (const field of Object.keys(body)) {
        for (const value of HOSTILE_VALUES) {
          const res = await t.api.post(path, { ...body, [field]: value }, { token: t.adminToken });
          if (res.status >= 500) failures.push(`POST ${path} {${field}: ${JSON.stringify(value)?.slice(0, 40)}} → ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('stores a log line containing NUL and finds it again', async () => {
    const res = await t.api.post('/api/messages', { level: 'INFO', content: `before${NUL}after` }, { token: t.adminToken });
    expect(res.status).toBe(201);
    expect(res.body.payload.content).toBe(`before${NUL}after`);
    const list = await t.api.get('/api/messages?q=after', { token: t.adminToken });
    expect(list.body.some((m: { id: number }) => m.id === res.body.id)).toBe(true);
  });
});
