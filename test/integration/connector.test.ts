// The connector's HTTP API on both stores, against the fake platform: fields and masking, secrets
// encrypted at rest, every transition and every refused one, the version check under concurrent
// updates, verify outcomes, test messages sent or only logged, log paging, the /feishu alias,
// access levels and hostile input.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startFakePlatform, type FakePlatform } from '../helpers/fakePlatform.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { CONNECTOR_ROUTES } from '../helpers/routes.js';

const APP_ID = 'cli_0123456789abcdef';
const APP_SECRET = 'http-app-secret-abcdefghij';
const BASE = '/api/integrations/chatplatform';

describeEachDriver('chat-platform connector API', (driver) => {
  let fake: FakePlatform;
  let t: TestHub;
  let member: { token: string };
  let agent: { api_token: string };

  beforeAll(async () => {
    fake = await startFakePlatform();
    fake.registerApp(APP_ID, APP_SECRET);
    // The long connection stays off here: these tests are about the lifecycle over HTTP.
    t = await startTestHub(driver, { CHATPLATFORM_BASE_URL: fake.url, CHATPLATFORM_TIMEOUT_MS: '400' });
    member = await t.createMember();
    agent = await t.createAgent();
  });
  afterAll(async () => {
    await t?.stop();
    await fake?.close();
  });
  beforeEach(() => {
    fake.auth = 'ok';
    fake.send = 'ok';
  });

  const admin = () => ({ token: t.adminToken });

  async function create(fields: Record<string, unknown> = {}) {
    const res = await t.api.post(BASE, { app_id: APP_ID, app_secret: APP_SECRET, ...fields }, admin());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: number; state: string; version: number };
  }
  const verify = (id: number) => t.api.post(`${BASE}/${id}/verify-callback`, {}, admin());
  const enable = (id: number, enabled: boolean) => t.api.patch(`${BASE}/${id}/enable`, { enabled }, admin());
  async function logs(id: number) {
    return (await t.api.get(`${BASE}/${id}/logs?limit=100`, admin())).body.items as Array<{
      id: string;
      level: string;
      action: string;
      detail: string;
      trace_id?: string;
    }>;
  }

  describe('fields, masking and storage', () => {
    it('answers defaults with id 0 before any connector exists', async () => {
      const fresh = await startTestHub(driver);
      try {
        const res = await fresh.api.get(BASE, { token: fresh.adminToken });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          id: 0,
          state: 'draft',
          enabled: false,
          has_app_secret: false,
          app_secret: '',
          allowed_chat_ids: [],
          allowed_actions: [],
        });
      } finally {
        await fresh.stop();
      }
    });

    it('creates a draft, accepting camelCase, masking secrets and never returning them', async () => {
      const res = await t.api.post(
        BASE,
        {
          connectorName: 'Ops Feishu',
          appId: APP_ID,
          appSecret: APP_SECRET,
          verificationToken: 'verification-token-1234',
          allowDm: false,
          rateLimitPerMinute: 30,
          allowedChatIds: 'oc_a, oc_b',
          userWhitelist: ['ou_1'],
          unknownField: 'ignored',
        },
        admin(),
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        connector_name: 'Ops Feishu',
        app_id: APP_ID,
        app_secret: 'ht****ij',
        has_app_secret: true,
        verification_token: 've****34',
        has_verification_token: true,
        encrypt_key: '',
        has_encrypt_key: false,
        allow_dm: false,
        allow_group_mention: true,
        mention_required: true,
        rate_limit_per_minute: 30,
        allowed_chat_ids: ['oc_a', 'oc_b'],
        user_whitelist: ['ou_1'],
        state: 'draft',
        enabled: false,
        callback_verified: false,
        status: 'not_connected',
        last_verified_at: null,
        allowed_actions: ['verify', 'update', 'test_message'],
        is_current: true,
      });
      expect(JSON.stringify(res.body)).not.toContain(APP_SECRET);
      const current = await t.api.get(BASE, admin());
      expect(current.body.id).toBe(res.body.id);
      expect(JSON.stringify(current.body)).not.toContain(APP_SECRET);
    });

    it('keeps secrets encrypted at rest', async () => {
      const { id } = await create({ encrypt_key: 'encrypt-key-secret-value' });
      const row = await t.hub.store.db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const text = JSON.stringify(row);
      expect(text).not.toContain(APP_SECRET);
      expect(text).not.toContain('encrypt-key-secret-value');
      expect(row.app_secret_cipher).toMatch(/^v1\./);
    });

    it('treats a masked secret sent back by a form as unchanged', async () => {
      const { id } = await create();
      expect((await verify(id)).body.ok).toBe(true);
      const shown = (await t.api.get(BASE, admin())).body;
      const res = await t.api.patch(`${BASE}/${id}`, { ...shown, connector_name: 'Renamed' }, admin());
      expect(res.body).toMatchObject({ connector_name: 'Renamed', state: 'verified', has_app_secret: true });
    });

    it('refuses wrong field types with 400 naming the field, and unknown ids with 404', async () => {
      const { id } = await create();
      for (const [body, error] of [
        [{ allow_dm: 'yes' }, 'allow_dm must be a boolean'],
        [{ rate_limit_per_minute: 0 }, 'rate_limit_per_minute must be at least 1'],
        [{ rateLimitPerMinute: 1.5 }, 'rate_limit_per_minute must be an integer'],
        [{ allowed_chat_ids: [1] }, 'allowed_chat_ids.0 must be a string'],
        [{ app_id: 'x'.repeat(200) }, 'app_id must be at most 128 characters'],
        [{ callback_url: 'not a url' }, 'callback_url must be a URL'],
      ] as const) {
        const res = await t.api.patch(`${BASE}/${id}`, body, admin());
        expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { error: error } });
      }
      expect(await t.api.patch(`${BASE}/${id}/enable`, { enabled: 'true' }, admin())).toMatchObject({
        status: 400,
        body: { error: 'enabled must be a boolean' },
      });
      expect(await t.api.post(BASE, [], admin())).toMatchObject({ status: 400 });
      for (const path of [`${BASE}/99999/verify-callback`, `${BASE}/99999/test-message`]) {
        expect(await t.api.post(path, {}, admin())).toMatchObject({ status: 404, body: { error: 'connector not found' } });
      }
      expect(await t.api.patch(`${BASE}/99999`, { connector_name: 'x' }, admin())).toMatchObject({ status: 404 });
      expect(await t.api.patch(`${BASE}/99999/enable`, { enabled: true }, admin())).toMatchObject({ status: 404 });
      expect(await t.api.get(`${BASE}/99999/logs`, admin())).toMatchObject({ status: 404 });
    });
  });

  describe('lifecycle', () => {
    it('walks draft → verified → enabled ⇄ disabled, refusing what the machine refuses with 409', async () => {
      const { id } = await create();
      expect(await enable(id, true)).toMatchObject({ status: 409, body: { error: 'connector must be verified before enabling' } });
      expect(await enable(id, false)).toMatchObject({ status: 409, body: { error: 'connector is not enabled' } });
      expect((await t.api.patch(`${BASE}/${id}`, { prefix_command: '/hub' }, admin())).body).toMatchObject({ state: 'draft', prefix_command: '/hub' });

      const verified = await verify(id);
      expect(verified.body).toMatchObject({
        ok: true,
        connector: { state: 'verified', callback_verified: true, allowed_actions: ['verify', 'update', 'enable', 'test_message'] },
      });
      expect(verified.body.verified_at).toBe(verified.body.connector.last_verified_at);

      expect((await enable(id, true)).body).toMatchObject({
        state: 'enabled',
        enabled: true,
        allowed_actions: ['verify', 'update', 'disable', 'test_message'],
      });
      expect(await enable(id, true)).toMatchObject({ status: 409, body: { error: 'connector is already enabled' } });
      expect((await t.api.patch(`${BASE}/${id}`, { mention_required: false }, admin())).body).toMatchObject({ state: 'enabled' });
      expect((await verify(id)).body).toMatchObject({ ok: true, connector: { state: 'enabled' } });
      expect((await enable(id, false)).body).toMatchObject({ state: 'disabled', enabled: false });
      expect(await enable(id, false)).toMatchObject({ status: 409 });
      expect((await enable(id, true)).body).toMatchObject({ state: 'enabled' });

      const actions = (await logs(id)).map((e) => e.action).reverse();
      expect(actions).toEqual([
        'created',
        'enabled',
        'disabled',
        'updated',
        'verify',
        'enabled',
        'enabled',
        'updated',
        'verify',
        'disabled',
        'disabled',
        'enabled',
      ]);
    });

    it('drops a verified, enabled or disabled connector back to draft when credentials change', async () => {
      for (const setup of ['verified', 'enabled', 'disabled'] as const) {
        const { id } = await create();
        await verify(id);
        if (setup !== 'verified') await enable(id, true);
        if (setup === 'disabled') await enable(id, false);
        for (const change of [
          { app_secret: 'another-secret-value' },
          { appId: 'cli_fedcba9876543210' },
          { verification_token: 'new-token-value' },
          { encrypt_key: 'new-key-value' },
        ]) {
          await t.api.patch(`${BASE}/${id}`, { app_id: APP_ID, app_secret: APP_SECRET, verification_token: '', encrypt_key: '' }, admin());
          await verify(id);
          if (setup !== 'verified') await enable(id, true);
          if (setup === 'disabled') await enable(id, false);
          const res = await t.api.patch(`${BASE}/${id}`, change, admin());
          expect(res.body, `${setup} ${JSON.stringify(change)}`).toMatchObject({ state: 'draft', enabled: false, callback_verified: false });
        }
      }
    });

    it('a second POST becomes the current connector; the previous one is stopped and its logs stay readable', async () => {
      const first = await create();
      await verify(first.id);
      await enable(first.id, true);
      const second = await create({ connector_name: 'Second' });
      const current = await t.api.get(BASE, admin());
      expect(current.body).toMatchObject({ id: second.id, is_current: true, state: 'draft' });
      const old = await t.hub.store.db.selectFrom('connectors').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
      expect(old).toMatchObject({ state: 'disabled', is_current: 0 });
      expect((await logs(first.id)).map((e) => e.action)).toContain('replaced');
      expect(await enable(first.id, true)).toMatchObject({ status: 409, body: { error: 'only the current connector can be enabled' } });
    });

    it('lets only one of two concurrent updates of the same version land', async () => {
      const { id } = await create();
      const rounds = 6;
      let landed = 0;
      let refused = 0;
      for (let i = 0; i < rounds; i++) {
        const results = await Promise.all([
          t.api.patch(`${BASE}/${id}`, { connector_name: `a-${i}`, rate_limit_per_minute: 10 + i }, admin()),
          t.api.patch(`${BASE}/${id}`, { connector_name: `b-${i}`, app_secret: `secret-b-${i}-long` }, admin()),
        ]);
        for (const r of results) {
          expect([200, 409]).toContain(r.status);
          if (r.status === 200) landed++;
          else {
            refused++;
            expect(r.body.error).toMatch(/changed by another request/);
          }
        }
      }
      const row = await t.hub.store.db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      // Every landed write bumped the version once; a refused one changed nothing.
      expect(row.version).toBe(1 + landed);
      expect(landed + refused).toBe(rounds * 2);
      expect(landed).toBeGreaterThanOrEqual(rounds);
    });

    it('takes the version a change was made from, and refuses it with 409 once the connector moved on', async () => {
      const { id, version } = await create();
      const first = await t.api.patch(`${BASE}/${id}`, { connector_name: 'edited by one', version }, admin());
      expect(first).toMatchObject({ status: 200, body: { connector_name: 'edited by one', version: version + 1 } });
      // A second form still holding the old copy does not overwrite the first one's change.
      const stale = await t.api.patch(`${BASE}/${id}`, { connector_name: 'edited by another', version }, admin());
      expect(stale).toMatchObject({ status: 409, body: { error: 'the connector was changed by another request meanwhile; reload it and try again' } });
      expect((await t.api.get(BASE, admin())).body.connector_name).toBe('edited by one');
      expect((await t.api.patch(`${BASE}/${id}`, { connector_name: 'x', version: 'one' }, admin())).body).toEqual({ error: 'version must be a number' });
      // Without a version a PATCH applies to whatever is current, as before.
      expect((await t.api.patch(`${BASE}/${id}`, { connector_name: 'no version' }, admin())).status).toBe(200);
    });

    it('refuses a write made from a stale read (the version check itself)', async () => {
      const { id, version } = await create();
      const { createConnectorsRepo } = await import('../../src/store/repositories/connectors.js');
      const repo = createConnectorsRepo(t.hub.store.db);
      const now = new Date().toISOString();
      const [a, b] = await Promise.all([
        repo.update(id, version, { connector_name: 'first', updated_at: now }),
        repo.update(id, version, { connector_name: 'second', updated_at: now }),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      expect((a ?? b)!.version).toBe(version + 1);
    });

    it('describes the machine for a dashboard', async () => {
      const res = await t.api.get(`${BASE}/machine`, admin());
      expect(res.status).toBe(200);
      expect(res.body.states).toEqual(['draft', 'verified', 'enabled', 'disabled']);
      expect(res.body.transitions).toContainEqual({ from: 'verified', event: 'ENABLE', to: 'enabled', effects: ['startConnection'] });
      expect(res.body.transitions).toContainEqual({
        from: 'enabled',
        event: 'UPDATE',
        to: 'draft',
        guard: 'changesCredentials',
        effects: ['stopConnection', 'applyChanges'],
      });
      expect(res.body.transitions.some((tr: { from: string; event: string }) => tr.from === 'draft' && tr.event === 'ENABLE')).toBe(false);
    });
  });

  describe('verify', () => {
    it('answers and logs a rejection with the platform’s code and message, and keeps the state', async () => {
      const { id } = await create({ app_secret: 'wrong-secret-123456' });
      const res = await verify(id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ok: false,
        message: 'the platform rejected the credentials',
        detail: 'rejected by the platform: code 10014, app secret invalid (HTTP 200)',
      });
      expect((await t.api.get(BASE, admin())).body.state).toBe('draft');
      expect((await logs(id))[0]).toMatchObject({ level: 'WARNING', action: 'verify' });
    });

    it('times out on a platform that hangs, and says so', async () => {
      const { id } = await create();
      fake.auth = 'hang';
      const res = await verify(id);
      expect(res.body).toMatchObject({ ok: false, message: 'the platform could not be asked', detail: 'no answer from the platform within 400 ms' });
      expect((await t.api.get(BASE, admin())).body.state).toBe('draft');
      expect((await logs(id))[0]).toMatchObject({ level: 'ERROR', action: 'verify' });
    });

    it('does not take garbage or a success without a token for an answer', async () => {
      const { id } = await create();
      fake.auth = 'garbage';
      expect((await verify(id)).body).toMatchObject({ ok: false, detail: 'unexpected answer from the platform: HTTP 502, not JSON' });
      fake.auth = 'no-token';
      expect((await verify(id)).body).toMatchObject({ ok: false, detail: 'unexpected answer from the platform: HTTP 200, code 0 without the expected fields' });
      expect((await t.api.get(BASE, admin())).body.state).toBe('draft');
    });

    it('reports an unreachable platform', async () => {
      // A port that was just free: nothing listens there.
      const probe = createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const offline = await startTestHub(driver, { CHATPLATFORM_BASE_URL: `http://127.0.0.1:${port}`, CHATPLATFORM_TIMEOUT_MS: '2000' });
      try {
        const created = await offline.api.post(BASE, { app_id: APP_ID, app_secret: APP_SECRET }, { token: offline.adminToken });
        const res = await offline.api.post(`${BASE}/${created.body.id}/verify-callback`, {}, { token: offline.adminToken });
        expect(res.body).toMatchObject({ ok: false, message: 'the platform could not be asked', detail: 'platform unreachable: ECONNREFUSED' });
      } finally {
        await offline.stop();
      }
    });

    it('needs app_id and app_secret first', async () => {
      const res = await t.api.post(BASE, { connector_name: 'empty' }, admin());
      expect((await verify(res.body.id)).body).toEqual({ ok: false, message: 'app_id and app_secret are required before verifying' });
    });
  });

  describe('test message', () => {
    it('is only logged, with a trace id, while the connector is not enabled', async () => {
      const { id } = await create({ allowed_chat_ids: ['oc_ops'] });
      const before = fake.sends.length;
      const res = await t.api.post(`${BASE}/${id}/test-message`, { text: 'ping' }, admin());
      expect(res.body).toMatchObject({ ok: true, message: 'the connector is not enabled: the test message was logged, not sent' });
      expect(res.body.trace_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(fake.sends.length).toBe(before);
      expect((await logs(id))[0]).toMatchObject({ action: 'test_message', trace_id: res.body.trace_id });
    });

    it('is really sent when enabled, to target_chat_id or the first allowed chat, and the platform’s answer is logged', async () => {
      const { id } = await create({ allowed_chat_ids: ['oc_first', 'oc_second'] });
      await verify(id);
      await enable(id, true);
      const before = fake.sends.length;
      const toFirst = await t.api.post(`${BASE}/${id}/test-message`, {}, admin());
      expect(toFirst.body).toMatchObject({ ok: true, message: 'test message sent', platform_message_id: expect.stringMatching(/^om_sent_/) });
      const toTarget = await t.api.post(`${BASE}/${id}/test-message`, { targetChatId: 'oc_target', text: 'hello there' }, admin());
      expect(toTarget.body.ok).toBe(true);
      expect(fake.sends.slice(before)).toEqual([
        { chat_id: 'oc_first', msg_type: 'text', text: `Test message from the hub (trace ${toFirst.body.trace_id})`, receive_id_type: 'chat_id' },
        { chat_id: 'oc_target', msg_type: 'text', text: 'hello there', receive_id_type: 'chat_id' },
      ]);
      const entries = (await logs(id)).filter((e) => e.trace_id === toTarget.body.trace_id);
      expect(entries.map((e) => e.level)).toEqual(['SUCCESS', 'INFO']);
      expect(entries[0]!.detail).toContain('oc_target');
    });

    it('says why when it cannot be sent', async () => {
      const { id } = await create();
      await verify(id);
      await enable(id, true);
      const noChat = await t.api.post(`${BASE}/${id}/test-message`, {}, admin());
      expect(noChat.body).toMatchObject({ ok: false, message: 'no chat to send to: give target_chat_id or set allowed_chat_ids' });
      fake.send = 'reject';
      const rejected = await t.api.post(`${BASE}/${id}/test-message`, { target_chat_id: 'oc_gone' }, admin());
      expect(rejected.body).toMatchObject({ ok: false, message: expect.stringContaining('code 230002') });
      expect((await logs(id))[0]).toMatchObject({ level: 'ERROR', action: 'test_message', trace_id: rejected.body.trace_id });
    });
  });

  describe('logs', () => {
    it('pages newest first behind an opaque cursor, with no repeats and no gaps', async () => {
      const { id } = await create();
      for (let i = 0; i < 11; i++) await t.api.patch(`${BASE}/${id}`, { connector_name: `name ${i}` }, admin());
      const all = await logs(id);
      expect(all).toHaveLength(12);
      const seen: string[] = [];
      let cursor = '';
      let pages = 0;
      do {
        const res = await t.api.get(`${BASE}/${id}/logs?limit=5&cursor=${encodeURIComponent(cursor)}`, admin());
        expect(res.status).toBe(200);
        expect(res.body.items.length).toBeLessThanOrEqual(5);
        seen.push(...res.body.items.map((e: { id: string }) => e.id));
        cursor = res.body.cursor;
        pages++;
      } while (cursor !== '');
      expect(pages).toBe(3);
      expect(seen).toEqual(all.map((e) => e.id));
      expect(new Set(seen).size).toBe(seen.length);
      expect(all[0]).toMatchObject({ id: expect.stringMatching(/^\d+$/), level: 'INFO', action: 'updated', timestamp: expect.any(String) });
      const first = await t.api.get(`${BASE}/${id}/logs`, admin());
      expect(first.body.items).toHaveLength(12);
      expect(first.body.cursor).toBe('');
    });

    it('refuses a forged cursor and an out-of-range limit', async () => {
      const { id } = await create();
      expect(await t.api.get(`${BASE}/${id}/logs?cursor=abc`, admin())).toMatchObject({ status: 400, body: { error: expect.stringContaining('cursor') } });
      expect(await t.api.get(`${BASE}/${id}/logs?limit=101`, admin())).toMatchObject({ status: 400, body: { error: 'limit must be at most 100' } });
    });
  });

  it('answers under /api/integrations/feishu exactly as under /chatplatform', async () => {
    const created = await t.api.post('/api/integrations/feishu', { app_id: APP_ID, app_secret: APP_SECRET }, admin());
    expect(created.status).toBe(201);
    const viaAlias = await t.api.get('/api/integrations/feishu', admin());
    const viaMain = await t.api.get(BASE, admin());
    expect(viaAlias.body).toEqual(viaMain.body);
    expect((await t.api.post(`/api/integrations/feishu/${created.body.id}/verify-callback`, {}, admin())).body.ok).toBe(true);
    expect((await t.api.get(`/api/integrations/feishu/${created.body.id}/logs`, admin())).body).toEqual(
      (await t.api.get(`${BASE}/${created.body.id}/logs`, admin())).body,
    );
  });

  describe.each(CONNECTOR_ROUTES)('access: $method $path', (route) => {
    it('refuses no credentials with 401, a member and an agent with 403, and serves an admin', async () => {
      const { id } = await create();
      const path = route.path.replace(':id', String(id));
      expect(await t.api.request(route.method, path, { body: {} })).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
      for (const token of [member.token, agent.api_token]) {
        expect(await t.api.request(route.method, path, { token, body: {} })).toMatchObject({ status: 403, body: { error: 'admin access required' } });
      }
      const served = await t.api.request(route.method, path, { token: t.adminToken, body: route.path.endsWith('/enable') ? { enabled: false } : {} });
      expect([401, 403, 404]).not.toContain(served.status);
      expect(served.status).toBeLessThan(500);
    });
  });

  it('never answers 500 to hostile bodies, parameters or queries', async () => {
    const { id } = await create();
    const failures: string[] = [];
    const hostile: unknown[] = [null, Number.MAX_VALUE, -1, '', 'x'.repeat(5000), [], { $gt: '' }, '\u0000', ['a', 1]];
    // One prefix is enough: the alias is the same handlers.
    for (const route of CONNECTOR_ROUTES.filter((r) => r.path.includes('chatplatform'))) {
      for (const param of [String(id), 'abc', '%00']) {
        const path = route.path.replace(':id', param);
        if (route.method === 'GET') {
          for (const q of ['cursor=%00', 'limit=abc', 'limit=-1', 'cursor=' + 'x'.repeat(400), 'limit=1e400']) {
            const res = await t.api.get(`${path}?${q}`, admin());
            if (res.status >= 500) failures.push(`GET ${path}?${q} → ${res.status}`);
          }
          continue;
        }
        for (const field of ['app_id', 'appSecret', 'allowed_chat_ids', 'enabled', 'target_chat_id', 'rate_limit_per_minute']) {
          for (const value of hostile) {
            const res = await t.api.request(route.method, path, { token: t.adminToken, body: { [field]: value } });
            if (res.status >= 500) failures.push(`${route.method} ${path} {${field}: ${JSON.stringify(value)?.slice(0, 30)}} → ${res.status}`);
          }
        }
        for (const raw of ['{', 'nul\u0000', '[1]', '"text"']) {
          const res = await t.api.request(route.method, path, { token: t.adminToken, rawBody: raw });
          if (res.status >= 500) failures.push(`${route.method} ${path} raw ${JSON.stringify(raw)} → ${res.status}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
