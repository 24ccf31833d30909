// The older EchoCenter dashboards' extras and seed script against this hub: the ops panels keep SSH
// keys (encrypted, shown by fingerprint) and infra nodes as an inventory with the older hub's shapes,
// statuses and messages, say plainly that no executor runs here, list seeded task records; the seed
// script's `POST /api/dev/mock/feishu-log` calls land in the connector's log; and the whole seed
// script replays to its last step.
import { createHash } from 'node:crypto';
import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/auth/secrets.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { CLASSIC_CHAT, CLASSIC_CHAT_AGENTS, replayOlderSeed, SEED_NODES, SEED_TASKS, type SeedResult } from '../helpers/olderSeed.js';
import { concrete, OPS_ROUTES, type RouteSpec } from '../helpers/routes.js';

const NO_EXECUTOR = 'this hub has no managed ops executor';

/** A fresh ed25519 pair as `ssh-keygen` writes it: an OpenSSH private key and its public line. */
function keyPair(comment = 'ops@test') {
  const key = sshpk.generatePrivateKey('ed25519');
  key.comment = comment;
  return { privateKey: key.toString('openssh'), publicKey: key.toPublic().toString('ssh') };
}

/** `ssh-keygen -l`'s fingerprint, computed here from the public line alone: SHA256 of the key blob, base64 unpadded. */
function fingerprintOf(publicLine: string): string {
  const blob = Buffer.from(publicLine.split(' ')[1]!, 'base64');
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The base64 body of a private key: what must never appear in an answer, a log line or a column. */
const secretPart = (privateKey: string) => privateKey.split('\n').slice(1, -2).join('');

describeEachDriver('older dashboards', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  describe('ops panels', () => {
    const walked: RouteSpec[] = [...OPS_ROUTES, { method: 'POST', path: '/api/dev/mock/ops-task', access: 'admin-non-production' }];
    it.each(walked)('$method $path: admins only (401 without credentials, 403 to a member and an agent)', async (route) => {
      const [member, agent] = await Promise.all([t.createMember(), t.createAgent()]);
      const path = concrete(route.path);
      expect(await t.api.request(route.method, path, { body: {} })).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
      for (const token of [member.token, agent.api_token]) {
        expect(await t.api.request(route.method, path, { token, body: {} })).toMatchObject({ status: 403, body: { error: 'admin access required' } });
      }
      // An admin gets past the guard: an answer to the request itself (success, or what is wrong with it).
      const admin = await t.api.request(route.method, path, { token: t.adminToken, body: {} });
      expect([200, 201, 400, 404], JSON.stringify(admin.body)).toContain(admin.status);
    });

    it('says plainly that no executor runs, with the older status shape', async () => {
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
          node_count: expect.any(Number),
          ssh_key_count: expect.any(Number),
        },
      });
      expect(status.body.message).toContain(NO_EXECUTOR);
      expect(status.body.message).toContain('nothing connects to a node or runs a task');
    });

    it('keeps SSH keys encrypted, shows them by fingerprint, newest first, and never returns or logs a private key', async () => {
      const post = (body: unknown) => t.api.post('/api/users/ops/ssh-keys', body, { token: t.adminToken });
      const first = keyPair();
      const second = keyPair('second@test');
      const required = 'ssh key name and private key are required';
      for (const body of [
        {},
        { name: 'no-private-key' },
        { private_key: first.privateKey },
        { name: '   ', private_key: first.privateKey },
        { name: 'blank', private_key: '  ' },
      ]) {
        expect(await post(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: required } });
      }
      expect(await post({ name: 'garbage', private_key: 'not a key' })).toMatchObject({
        status: 400,
        body: { error: 'private_key is not an SSH private key (OpenSSH or PEM)' },
      });
      expect(await post({ name: 'mismatch', private_key: first.privateKey, public_key: second.publicKey })).toMatchObject({
        status: 400,
        body: { error: 'public_key does not belong to private_key' },
      });
      expect(await post({ name: 'bad-public', private_key: first.privateKey, public_key: 'ssh-ed25519 AAAAnope' })).toMatchObject({
        status: 400,
        body: { error: 'public_key is not an SSH public key (such as "ssh-ed25519 AAAA… comment")' },
      });

      const before = (await t.api.get('/api/users/ops/status', { token: t.adminToken })).body.ssh_key_count as number;
      const name = uniqueName('bastion');
      // Without a public key, it is derived from the private key.
      const created = await post({ name, private_key: first.privateKey });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        name,
        public_key: first.publicKey.split(' ').slice(0, 2).join(' '),
        fingerprint: fingerprintOf(first.publicKey),
        has_private_key: true,
        created_at: expect.any(String),
        updated_at: created.body.created_at,
      });
      expect(await post({ name, private_key: second.privateKey })).toMatchObject({ status: 409, body: { error: 'ssh key name already exists' } });
      const other = await post({ name: uniqueName('fleet'), public_key: second.publicKey, private_key: second.privateKey });
      expect(other).toMatchObject({ status: 201, body: { public_key: second.publicKey, fingerprint: fingerprintOf(second.publicKey), has_private_key: true } });

      const listed = await t.api.get('/api/users/ops/ssh-keys', { token: t.adminToken });
      expect(listed.status).toBe(200);
      const ours = (listed.body as Array<{ id: number }>).filter((k) => k.id === created.body.id || k.id === other.body.id);
      expect(ours).toEqual([other.body, created.body]);
      expect((await t.api.get('/api/users/ops/status', { token: t.adminToken })).body.ssh_key_count).toBe(before + 2);

      // Stored only encrypted, under the hub's own key for SSH keys.
      const row = await t.hub.store.db.selectFrom('ssh_keys').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
      expect(row.private_key_cipher).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(secretPart(first.privateKey));
      expect(createSecretBox(t.jwtSecret, 'ssh-key-encryption').open(row.private_key_cipher)).toBe(first.privateKey.trim());

      // Renamed without a private key: the stored key stays.
      const renamed = await t.api.patch(`/api/users/ops/ssh-keys/${created.body.id}`, { name: `${name}-renamed`, private_key: '' }, { token: t.adminToken });
      expect(renamed).toMatchObject({
        status: 200,
        body: { id: created.body.id, name: `${name}-renamed`, fingerprint: created.body.fingerprint, has_private_key: true },
      });
      expect(renamed.body).not.toHaveProperty('private_key');
      const kept = await t.hub.store.db.selectFrom('ssh_keys').select('private_key_cipher').where('id', '=', created.body.id).executeTakeFirstOrThrow();
      expect(kept.private_key_cipher).toBe(row.private_key_cipher);
      // A public key that is not the stored private key's is refused; a new pair replaces both.
      expect(await t.api.patch(`/api/users/ops/ssh-keys/${created.body.id}`, { name, public_key: second.publicKey }, { token: t.adminToken })).toMatchObject({
        status: 400,
        body: { error: 'public_key does not belong to private_key' },
      });
      const third = keyPair('third@test');
      const replaced = await t.api.patch(`/api/users/ops/ssh-keys/${created.body.id}`, { name, private_key: third.privateKey }, { token: t.adminToken });
      expect(replaced).toMatchObject({ status: 200, body: { name, fingerprint: fingerprintOf(third.publicKey) } });
      expect(await t.api.patch(`/api/users/ops/ssh-keys/${created.body.id}`, { name: '' }, { token: t.adminToken })).toMatchObject({
        status: 400,
        body: { error: 'ssh key name is required' },
      });
      expect(await t.api.patch(`/api/users/ops/ssh-keys/${created.body.id}`, { name: other.body.name }, { token: t.adminToken })).toMatchObject({
        status: 409,
        body: { error: 'ssh key name already exists' },
      });
      expect(await t.api.patch('/api/users/ops/ssh-keys/999999', { name: 'ghost' }, { token: t.adminToken })).toMatchObject({
        status: 404,
        body: { error: 'ssh key not found' },
      });

      expect(await t.api.delete(`/api/users/ops/ssh-keys/${other.body.id}`, { token: t.adminToken })).toMatchObject({ status: 200, body: { ok: true } });
      expect(await t.api.delete(`/api/users/ops/ssh-keys/${other.body.id}`, { token: t.adminToken })).toMatchObject({
        status: 404,
        body: { error: 'ssh key not found' },
      });
      const after = (await t.api.get('/api/users/ops/ssh-keys', { token: t.adminToken })).body as Array<{ id: number }>;
      expect(after.map((k) => k.id)).not.toContain(other.body.id);

      // No private key in any answer or log line of this test.
      const everything = JSON.stringify([listed.body, renamed.body, replaced.body, t.logs]);
      for (const pair of [first, second, third]) expect(everything).not.toContain(secretPart(pair.privateKey));
      expect(everything).not.toContain('PRIVATE KEY');
    });

    it('keeps infra nodes that name a key, with the older messages, and answers a node test with ok: false', async () => {
      const key = await t.api.post('/api/users/ops/ssh-keys', { name: uniqueName('node-key'), private_key: keyPair().privateKey }, { token: t.adminToken });
      expect(key.status).toBe(201);
      const spare = await t.api.post('/api/users/ops/ssh-keys', { name: uniqueName('spare-key'), private_key: keyPair().privateKey }, { token: t.adminToken });
      const post = (body: unknown) => t.api.post('/api/users/ops/nodes', body, { token: t.adminToken });
      const valid = { name: uniqueName('web'), host: '10.20.0.14', ssh_user: 'ubuntu', ssh_key_id: key.body.id };
      const required = 'name, host, ssh_user, and ssh_key_id are required';
      for (const body of [
        {},
        { ...valid, name: '' },
        { ...valid, host: undefined },
        { ...valid, ssh_user: ' ' },
        { ...valid, ssh_key_id: 0 },
        { ...valid, ssh_key_id: -3 },
      ]) {
        expect(await post(body), JSON.stringify(body)).toMatchObject({ status: 400, body: { error: required } });
      }
      expect(await post({ ...valid, ssh_key_id: 999_999 })).toMatchObject({ status: 404, body: { error: 'ssh key not found' } });

      const before = (await t.api.get('/api/users/ops/status', { token: t.adminToken })).body.node_count as number;
      const created = await post(valid);
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(Number),
        ...valid,
        port: 22,
        description: '',
        created_at: expect.any(String),
        updated_at: created.body.created_at,
      });
      expect(await post(valid)).toMatchObject({ status: 409, body: { error: 'infra node name already exists' } });
      const second = await post({ ...valid, name: uniqueName('db'), port: 2222, description: 'Readonly replica' });
      expect(second).toMatchObject({ status: 201, body: { port: 2222, description: 'Readonly replica' } });
      const listed = (await t.api.get('/api/users/ops/nodes', { token: t.adminToken })).body as Array<{ id: number }>;
      expect(listed.filter((n) => n.id === created.body.id || n.id === second.body.id)).toEqual([second.body, created.body]);
      expect((await t.api.get('/api/users/ops/status', { token: t.adminToken })).body.node_count).toBe(before + 2);

      // The edit form sends the whole node again.
      const edited = { ...valid, host: 'web-01.internal', port: 2200, ssh_user: 'deploy', ssh_key_id: spare.body.id, description: 'moved' };
      const patched = await t.api.patch(`/api/users/ops/nodes/${created.body.id}`, edited, { token: t.adminToken });
      expect(patched).toMatchObject({ status: 200, body: { id: created.body.id, ...edited, created_at: created.body.created_at } });
      expect(await t.api.patch(`/api/users/ops/nodes/${created.body.id}`, { name: valid.name }, { token: t.adminToken })).toMatchObject({
        status: 400,
        body: { error: required },
      });
      expect(await t.api.patch(`/api/users/ops/nodes/${created.body.id}`, { ...edited, name: second.body.name }, { token: t.adminToken })).toMatchObject({
        status: 409,
        body: { error: 'infra node name already exists' },
      });
      expect(await t.api.patch('/api/users/ops/nodes/999999', edited, { token: t.adminToken })).toMatchObject({
        status: 404,
        body: { error: 'infra node not found' },
      });

      const tested = await t.api.post(`/api/users/ops/nodes/${created.body.id}/test`, undefined, { token: t.adminToken });
      expect(tested).toMatchObject({ status: 200, body: { node_id: created.body.id, ok: false, round_trip_ms: 0 } });
      expect(tested.body.message).toContain('no executor can reach nodes from this hub');
      expect(tested.body.message).toContain('deploy@web-01.internal:2200');
      expect(Date.parse(tested.body.checked_at_utc)).not.toBeNaN();
      expect(await t.api.post('/api/users/ops/nodes/999999/test', undefined, { token: t.adminToken })).toMatchObject({
        status: 404,
        body: { error: 'infra node not found' },
      });

      // A key a node uses stays until no node does.
      const refused = await t.api.delete(`/api/users/ops/ssh-keys/${key.body.id}`, { token: t.adminToken });
      expect(refused).toMatchObject({
        status: 409,
        body: { error: `ssh key is used by infra node ${second.body.name}: delete the node or give it another key first` },
      });
      expect(await t.api.delete(`/api/users/ops/nodes/${second.body.id}`, { token: t.adminToken })).toMatchObject({ status: 200, body: { ok: true } });
      expect(await t.api.delete(`/api/users/ops/nodes/${second.body.id}`, { token: t.adminToken })).toMatchObject({
        status: 404,
        body: { error: 'infra node not found' },
      });
      expect(await t.api.delete(`/api/users/ops/ssh-keys/${key.body.id}`, { token: t.adminToken })).toMatchObject({ status: 200, body: { ok: true } });
      expect(await t.api.delete(`/api/users/ops/ssh-keys/${spare.body.id}`, { token: t.adminToken })).toMatchObject({ status: 409 });
    });

    it('records ops tasks from POST /api/dev/mock/ops-task and lists them newest first', async () => {
      const seed = (body: unknown) => t.api.post('/api/dev/mock/ops-task', body, { token: t.adminToken });
      expect(await seed({})).toMatchObject({ status: 400, body: { error: 'task is required' } });
      expect(await seed({ task: 'x', success: 'yes' })).toMatchObject({ status: 400, body: { error: 'success must be a boolean' } });
      expect(await seed({ task: 'write_and_run_code', summary: '385' })).toMatchObject({ status: 201, body: { ok: true } });
      expect(
        await seed({ task: 'restart_worker', success: false, error: 'exit 1', worker_mode: 'service', duration_ms: 1500, reasoning: 'stuck' }),
      ).toMatchObject({
        status: 201,
        body: { ok: true },
      });
      const listed = await t.api.get('/api/users/ops/tasks?limit=10', { token: t.adminToken });
      expect(listed.status).toBe(200);
      const [failed, done] = listed.body as Array<Record<string, any>>;
      expect(failed).toEqual({
        id: expect.stringMatching(/^\d+$/),
        task: 'restart_worker',
        reasoning: 'stuck',
        status: 'failed',
        success: false,
        summary: '',
        error: 'exit 1',
        worker_mode: 'service',
        started_at: expect.any(String),
        finished_at: expect.any(String),
        duration_ms: 1500,
        updated_at: failed!.finished_at,
      });
      expect(Date.parse(failed!.finished_at) - Date.parse(failed!.started_at)).toBe(1500);
      expect(done).toMatchObject({ task: 'write_and_run_code', status: 'completed', success: true, summary: '385', duration_ms: 0 });
      expect(Number(failed!.id)).toBeGreaterThan(Number(done!.id));
      expect((await t.api.get('/api/users/ops/tasks?limit=1', { token: t.adminToken })).body).toEqual([failed]);
      expect(await t.api.get('/api/users/ops/tasks?limit=0', { token: t.adminToken })).toMatchObject({ status: 400 });
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

  describe('the older seed script, replayed to its end on a fresh hub', () => {
    let fresh: TestHub;
    let seed: SeedResult;
    beforeAll(async () => {
      fresh = await startTestHub(driver);
      seed = await replayOlderSeed(fresh.api, { username: 'admin', password: 'admin-password' });
    });
    afterAll(() => fresh.stop());
    const get = (path: string) => fresh.api.get(path, { token: fresh.adminToken });

    it('reaches its last step, every request answered with success but registering Butler again', () => {
      expect(seed.lastStep).toBe(7);
      const failed = seed.calls.filter((c) => c.status >= 300).map((c) => `${c.method} ${c.path} → ${c.status} ${JSON.stringify(c.body)}`);
      expect(failed).toEqual(['POST /users/agents → 409 {"error":"username already exists"}']);
      expect(seed.calls.filter((c) => c.step === 6 || c.step === 7).every((c) => c.status === 201 || c.status === 200)).toBe(true);
    });

    it('leaves the SSH keys, the nodes and the task records the ops panels list', async () => {
      const keys = await get('/api/users/ops/ssh-keys');
      expect(keys.body).toEqual(
        [...seed.keys].reverse().map((k) => ({
          id: k.id,
          name: k.name,
          public_key: k.publicKey,
          fingerprint: fingerprintOf(k.publicKey),
          has_private_key: true,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        })),
      );
      for (const k of seed.keys) expect(JSON.stringify(keys.body)).not.toContain(secretPart(k.privateKey));

      const nodes = await get('/api/users/ops/nodes');
      const keyId = (name: string) => seed.keys.find((k) => k.name === name)!.id;
      expect(nodes.body).toEqual(
        [...SEED_NODES].reverse().map(({ key, ...node }) => ({
          id: expect.any(Number),
          ...node,
          ssh_key_id: keyId(key),
          created_at: expect.any(String),
          updated_at: expect.any(String),
        })),
      );

      const status = await get('/api/users/ops/status');
      expect(status.body).toMatchObject({ enabled: false, worker_reachable: false, node_count: 3, ssh_key_count: 2 });
      expect(status.body.message).toContain(NO_EXECUTOR);

      const tasks = await get('/api/users/ops/tasks?limit=10');
      expect(tasks.body).toEqual(
        [...SEED_TASKS].reverse().map((task) => ({
          id: expect.stringMatching(/^\d+$/),
          ...task,
          status: 'completed',
          success: true,
          error: '',
          worker_mode: 'service',
          started_at: expect.any(String),
          finished_at: expect.any(String),
          updated_at: expect.any(String),
        })),
      );
    });

    it("files each agent's seeded exchange in one thread, the pair's default, beside the titled threads", async () => {
      const agents = (await get('/api/users/agents')).body as Array<{ id: number; username: string }>;
      for (const agent of CLASSIC_CHAT_AGENTS) {
        const peer = agents.find((a) => a.username === agent)!;
        const threads = (await get(`/api/chat/threads?peer_id=${peer.id}`)).body as Array<{ id: number; is_default: boolean; title: string }>;
        const defaults = threads.filter((th) => th.is_default);
        expect(defaults, agent).toHaveLength(1);
        const rows = (await get(`/api/chat/threads/${defaults[0]!.id}/messages`)).body as Array<{ sender_name: string; payload: string }>;
        expect(
          rows.map((r) => [r.sender_name, r.payload]),
          agent,
        ).toEqual(CLASSIC_CHAT(agent).map(([sender, , content]) => [sender, content]));
      }
      const observer = (await get(`/api/chat/threads/${seed.threads['Runtime Observation']}/messages`)).body as Array<{ payload: string }>;
      expect(observer.map((r) => r.payload)).toEqual([
        '先给我一个当前运行时状态和异常概览。',
        '整体运行时可用，刚出现过一次短暂延迟抖动，目前已恢复并持续监控中。',
      ]);
    });

    it("leaves the agents never seen, with their seeded reports, and the connector's log filled", async () => {
      const agents = (await get('/api/users/agents/status')).body as Array<{ username: string; last_seen_at: string | null; last_report: string | null }>;
      expect(agents.find((a) => a.username === 'Observer')).toMatchObject({
        last_seen_at: null,
        last_report: 'A transient spike was detected on request latency and auto-recovered.',
      });
      const logs = await get(`/api/integrations/feishu/${seed.connectorId}/logs?limit=100`);
      const actions = (logs.body.items as Array<{ action: string }>).map((i) => i.action);
      expect(actions).toEqual(expect.arrayContaining(['ws_connecting', 'callback_verification_reset', 'test_message']));
    });
  });
});
