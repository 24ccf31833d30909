// No input makes the hub answer 500 or fall over: every route gets hostile bodies, queries and
// path parameters, and must answer with a client error (or success) every time.
import sshpk from 'sshpk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { eachLimited } from '../helpers/limited.js';
import { OPS_ROUTES, ROUTES } from '../helpers/routes.js';

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
/** A real key (made here, OpenSSH format), so the other fields of an SSH-key body are valid. */
const FUZZ_KEY = sshpk.generatePrivateKey('ed25519').toString('openssh');
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
/** The fields of the ops panels' bodies, walked on the routes that read them (the walk is long enough as it is). */
const OPS_FIELDS = [
  'name',
  'public_key',
  'private_key',
  'host',
  'port',
  'ssh_user',
  'ssh_key_id',
  'description',
  'task',
  'reasoning',
  'summary',
  'success',
  'duration_ms',
];
/** The ops routes that read a body, with the seed script's task record among them. */
const OPS_BODY_ROUTES = [
  ...OPS_ROUTES.filter((r) => (r.method === 'POST' || r.method === 'PATCH') && !r.path.endsWith('/test')),
  ...ROUTES.filter((r) => r.path.endsWith('/ops-task')),
];
/** The two walks over every route send thousands of requests, more with every route added: not a latency check. */
const WALK_TIMEOUT_MS = 120_000;
const PATH_VALUES = ['0', '-5', 'abc', '1e3', '99999999999999999999', '%00', '%F0%9F%98%80', 'Butler%00'];
const QUERY_KEYS = ['limit', 'page', 'offset', 'before_id', 'q', 'role', 'level', 'type', 'agent_id', 'exclude_role'];

describeEachDriver('hostile input', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it(
    'never answers 500 to any body on any route',
    async () => {
      const failures: string[] = [];
      const cases: Array<{ method: string; path: string; body?: unknown; rawBody?: string; label: string }> = [];
      for (const route of ROUTES.filter((r) => r.method !== 'GET' && !r.path.endsWith('/reset') && !r.path.endsWith('/ops-task'))) {
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
    },
    WALK_TIMEOUT_MS,
  );

  it(
    'never answers 500 to any path parameter or query',
    async () => {
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
    },
    WALK_TIMEOUT_MS,
  );

  it("never answers 500 to any body, path parameter or query on the ops panels' routes", async () => {
    const failures: string[] = [];
    const cases: Array<{ method: string; url: string; body?: unknown; rawBody?: string; label: string }> = [];
    for (const route of OPS_BODY_ROUTES) {
      const url = route.path.replace(':id', '3');
      for (const field of OPS_FIELDS) {
        for (const value of HOSTILE_VALUES)
          cases.push({ method: route.method, url, body: { [field]: value }, label: `{${field}: ${JSON.stringify(value)?.slice(0, 40)}}` });
      }
      for (const raw of ['{', '[', 'nul\u0000', '{"__proto__":{"admin":true}}'])
        cases.push({ method: route.method, url, rawBody: raw, label: `raw ${JSON.stringify(raw)}` });
    }
    // They read an id and one query key (the task list's limit).
    for (const route of OPS_ROUTES) {
      const paths = route.path.includes(':') ? PATH_VALUES.map((v) => route.path.replace(':id', v)) : [route.path];
      for (const path of paths) {
        for (const value of ['-1', 'abc', '%00', '1e400', '', '9'.repeat(30)])
          cases.push({ method: route.method, url: `${path}?limit=${value}&limit=2`, body: {}, label: '' });
      }
    }
    await eachLimited(cases, 8, async (c) => {
      const res = await t.api.request(c.method, c.url, { token: t.adminToken, body: c.method === 'GET' ? undefined : c.body, rawBody: c.rawBody });
      if (res.status >= 500) failures.push(`${c.method} ${c.url} ${c.label} → ${res.status}`);
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
      '/api/users/ops/ssh-keys': { name: 'fuzz-key', public_key: '', private_key: FUZZ_KEY },
      '/api/users/ops/nodes': { name: 'fuzz-node', host: '10.0.0.9', port: 22, ssh_user: 'fuzz', ssh_key_id: 1, description: 'fuzz' },
      '/api/dev/mock/ops-task': { task: 'fuzz', reasoning: 'fuzz', summary: 'fuzz', success: true, duration_ms: 5 },
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
