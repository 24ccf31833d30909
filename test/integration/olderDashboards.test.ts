// The older EchoCenter dashboards' extras and seed script against this hub: the ops pages get honest
// answers (disabled, empty lists, 501 for changes) instead of 404s, and the seed script's
// `POST /api/dev/mock/feishu-log` calls land in the current connector's log, sent exactly as it sends them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { concrete, OPS_ROUTES } from '../helpers/routes.js';

describeEachDriver('older dashboards', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  describe('ops pages', () => {
    it.each(OPS_ROUTES)('$method $path: admins only (401 without credentials, 403 to a member and an agent)', async (route) => {
      const [member, agent] = await Promise.all([t.createMember(), t.createAgent()]);
      const path = concrete(route.path);
      expect(await t.api.request(route.method, path, { body: {} })).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
      for (const token of [member.token, agent.api_token]) {
        expect(await t.api.request(route.method, path, { token, body: {} })).toMatchObject({ status: 403, body: { error: 'admin access required' } });
      }
      expect((await t.api.request(route.method, path, { token: t.adminToken, body: {} })).status).toBe(route.method === 'GET' ? 200 : 501);
    });

    it('says the ops executor is disabled and lists nothing', async () => {
      const status = await t.api.get('/api/users/ops/status', { token: t.adminToken });
      expect(status).toMatchObject({
        status: 200,
        body: {
          enabled: false,
          worker_reachable: false,
          worker_mode: '',
          service_url: '',
          managed_agent_id: 0,
          managed_agent_name: '',
          node_count: 0,
          ssh_key_count: 0,
        },
      });
      for (const path of ['/api/users/ops/tasks', '/api/users/ops/tasks?limit=10', '/api/users/ops/ssh-keys', '/api/users/ops/nodes']) {
        expect(await t.api.get(path, { token: t.adminToken }), path).toMatchObject({ status: 200, body: [] });
      }
    });

    it('answers every change with 501 naming what is not supported, logged as an answer, not a failure', async () => {
      const cases: Array<['POST' | 'PATCH' | 'DELETE', string, string]> = [
        ['POST', '/api/users/ops/ssh-keys', 'SSH keys cannot be added'],
        ['PATCH', '/api/users/ops/ssh-keys/3', 'SSH keys cannot be changed'],
        ['DELETE', '/api/users/ops/ssh-keys/3', 'SSH keys cannot be deleted'],
        ['POST', '/api/users/ops/nodes', 'nodes cannot be added'],
        ['PATCH', '/api/users/ops/nodes/3', 'nodes cannot be changed'],
        ['DELETE', '/api/users/ops/nodes/3', 'nodes cannot be deleted'],
        ['POST', '/api/users/ops/nodes/3/test', 'nodes cannot be tested'],
      ];
      const logged = t.logs.length;
      for (const [method, path, what] of cases) {
        const res = await t.api.request(method, path, { token: t.adminToken, body: { name: 'prod-key', host: '10.0.0.1' } });
        expect(res, `${method} ${path}`).toMatchObject({ status: 501, body: { error: `${what}: this hub has no managed ops executor` } });
      }
      const lines = t.logs.slice(logged).filter((l) => l['status'] === 501);
      expect(lines.map((l) => l['level'])).toEqual(cases.map(() => 'info'));
    });
  });

  describe('POST /api/dev/mock/feishu-log', () => {
    const seed = (body: unknown) => t.api.post('/api/dev/mock/feishu-log', body, { token: t.adminToken });

    it('answers 404 before there is a connector', async () => {
      expect(await seed({ level: 'info', action: 'ws_connecting', detail: 'x' })).toMatchObject({ status: 404, body: { error: 'connector not found' } });
    });

    it("appends the seed script's entries to the current connector's log and answers 201", async () => {
      const created = await t.api.post('/api/integrations/feishu', { connector_name: 'Mock Feishu', app_id: 'cli_mock_seed_app' }, { token: t.adminToken });
      expect(created.status).toBe(201);
      const entries = [
        { level: 'info', action: 'ws_connecting', detail: 'Mock WebSocket bridge connected to Feishu sandbox domain.' },
        {
          level: 'warning',
          action: 'callback_verification_reset',
          detail: 'Callback verification was reset after connector settings changed during development.',
        },
        { level: 'success', action: 'test_message', detail: 'Sent a synthetic approval-card test message to the mock ops room.' },
      ];
      for (const entry of entries) expect(await seed(entry)).toMatchObject({ status: 201, body: { ok: true } });
      const logs = await t.api.get(`/api/integrations/feishu/${created.body.id}/logs`, { token: t.adminToken });
      expect(logs.status).toBe(200);
      const seeded = (logs.body.items as Array<{ level: string; action: string; detail: string }>).filter((i) => entries.some((e) => e.action === i.action));
      expect(seeded.map((i) => [i.level, i.action, i.detail]).reverse()).toEqual(entries.map((e) => [e.level.toUpperCase(), e.action, e.detail]));
    });

    it('refuses an entry without its fields or with an unknown level, with 400 naming the field', async () => {
      expect(await seed({})).toMatchObject({ status: 400, body: { error: 'level is required; action is required; detail is required' } });
      expect(await seed({ level: 'loud', action: 'a', detail: 'd' })).toMatchObject({
        status: 400,
        body: { error: 'level must be one of INFO, WARNING, ERROR, SUCCESS' },
      });
    });
  });
});
