// GET /api/openapi.json: valid OpenAPI 3.1 (checked by a validator of the official schema), one
// operation for every route the app serves and no other, and each operation's stated access level
// is what the hub really enforces.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessLevels, type AccessLevel } from '../../src/http/routeDocs.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { A2A_ROUTES, ACCESS_TOKEN_ROUTES, CHAT_ACCESS_ROUTES, CONNECTOR_ROUTES, concrete, OPS_ROUTES, ROUTES, STATS_ROUTES } from '../helpers/routes.js';

interface Operation {
  'x-access': AccessLevel;
  summary: string;
  description: string;
  security: unknown[];
  parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }>;
  responses: Record<string, unknown>;
}
type Document = { openapi: string; paths: Record<string, Record<string, Operation>> };

/** `/api/users/{id}` → `/api/users/:id` */
const expressPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

function operations(doc: Document) {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path: expressPath(path), op })),
  );
}

describe('OpenAPI document', () => {
  let t: TestHub;
  let doc: Document;
  let member: { token: string };
  let agent: { id: number; username: string; api_token: string };
  beforeAll(async () => {
    // Self-registration on, so the public register route answers about its input, not the switch.
    t = await startTestHub('sqlite', { ALLOW_SELF_REGISTRATION: 'true' });
    member = await t.createMember();
    agent = await t.createAgent();
    // A connector with id 1, so its admin GET routes have something to answer about.
    expect((await t.api.post('/api/integrations/chatplatform', { app_id: 'cli_a1b2c3d4e5f60718' }, { token: t.adminToken })).status).toBe(201);
    const res = await t.api.get('/api/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as Document;
  });
  afterAll(() => t.stop());

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
  });

  it('documents every route the app serves, and only those', () => {
    const served = t.hub.routes.map((r) => `${r.method} ${r.path}`).sort();
    const documented = operations(doc)
      .map((o) => `${o.method} ${o.path}`)
      .sort();
    expect(served.length).toBeGreaterThan(30);
    expect(documented).toEqual(served);
  });

  it('names only routes that answer over HTTP (none is the unknown-route 404)', async () => {
    for (const { method, path } of operations(doc)) {
      const res = await t.api.request(method, concrete(path), { body: {} });
      expect(res.status === 404 && res.body?.error === 'not found', `${method} ${path} → ${res.status}`).toBe(false);
    }
  });

  it('states an access level on every operation, in words and as x-access', () => {
    for (const { method, path, op } of operations(doc)) {
      expect(AccessLevels, `${method} ${path}`).toContain(op['x-access']);
      expect(op.description, `${method} ${path}`).toMatch(/^Access: /);
      expect(Array.isArray(op.security)).toBe(true);
      expect(op.summary.length).toBeGreaterThan(5);
    }
  });

  it('states the access levels the hub enforces', async () => {
    const refused = (status: number) => status === 401 || status === 403;
    for (const { method, path, op } of operations(doc)) {
      // An agent's name for /agent-token/:username: Butler has no token to show.
      // An agent's A2A endpoint refuses other agents by the routing rules (a2aTasks.test.ts): Butler's is everyone's.
      const url = concrete(path, agent.id, /^\/a2a\/agents\/[:{]username}?$/.test(path) ? 'Butler' : agent.username);
      const name = `${method} ${path} (${op['x-access']})`;
      const anonymous = await t.api.request(method, url, { body: {} });
      const asMember = await t.api.request(method, url, { token: member.token, body: {} });
      const asAgent = await t.api.request(method, url, { token: agent.api_token, body: {} });
      switch (op['x-access']) {
        case 'public':
        case 'metrics': // no METRICS_TOKEN on this hub
          expect(refused(anonymous.status), name).toBe(false);
          break;
        case 'authenticated':
        case 'cards': // no A2A_PUBLIC_CARDS on this hub
          expect(anonymous.status, name).toBe(401);
          expect(refused(asMember.status), name).toBe(false);
          expect(refused(asAgent.status), name).toBe(false);
          break;
        case 'human':
          expect(anonymous.status, name).toBe(401);
          expect(refused(asMember.status), name).toBe(false);
          expect(asAgent.status, name).toBe(403);
          break;
        case 'admin':
        case 'admin-non-production':
          expect(anonymous.status, name).toBe(401);
          expect(asMember.body, name).toEqual({ error: 'admin access required' });
          expect(asAgent.body, name).toEqual({ error: 'admin access required' });
          if (method === 'GET') expect((await t.api.get(url, { token: t.adminToken })).status, name).toBe(200);
          break;
      }
    }
  });

  it('agrees with the route list the access matrix walks', () => {
    const walked = new Map(
      [...ROUTES, ...ACCESS_TOKEN_ROUTES, ...CHAT_ACCESS_ROUTES, ...CONNECTOR_ROUTES, ...OPS_ROUTES, ...STATS_ROUTES, ...A2A_ROUTES].map((r) => [
        `${r.method} ${r.path}`,
        r.access as string,
      ]),
    );
    const documented = new Map(
      operations(doc)
        .filter((o) => o.path !== '/metrics')
        .map((o) => [`${o.method} ${o.path}`, o.op['x-access'] as string]),
    );
    expect(documented).toEqual(walked);
  });

  it('describes inputs with the schemas the routes validate with', () => {
    const messages = doc.paths['/api/messages']!['get']!;
    const limit = messages.parameters!.find((p) => p.name === 'limit')!;
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } });
    const user = doc.paths['/api/users/{id}']!['get']!;
    expect(user.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(Object.keys(doc.paths['/api/admin/actors/{actor_id}']!['get']!.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']));
  });
});
