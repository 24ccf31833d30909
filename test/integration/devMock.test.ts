// Developer mock endpoints: reset to the bootstrap state, chat inserts, raw agent tokens.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';

describeEachDriver('dev mock', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('returns the raw token of an agent, which the hub accepts; Butler has none', async () => {
    const agent = await t.createAgent();
    const res = await t.api.get(`/api/dev/mock/agent-token/${agent.username}`, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ username: agent.username, role: 'AGENT', api_token: agent.api_token });
    const butler = await t.api.get('/api/dev/mock/agent-token/Butler', { token: t.adminToken });
    expect(butler.status).toBe(403);
    expect(butler.body).toEqual({ error: 'Butler runs inside the hub and has no api_token' });
    for (const name of ['admin', 'nobody']) {
      const missing = await t.api.get(`/api/dev/mock/agent-token/${name}`, { token: t.adminToken });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: 'agent not found' });
    }
  });

  it('inserts a chat row, once per local_id', async () => {
    const agent = await t.createAgent();
    const body = { sender_username: 'admin', receiver_username: agent.username, content: 'hello agent', local_id: 'l-1' };
    const res = await t.api.post('/api/dev/mock/chat', body, { token: t.adminToken });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number) });
    const again = await t.api.post('/api/dev/mock/chat', body, { token: t.adminToken });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ id: res.body.id });
    const rows = await t.hub.store.db.selectFrom('messages').selectAll().where('local_id', '=', 'l-1').execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: 'CHAT', sender_id: 1, target_id: agent.id, content: 'hello agent' });
    // Chat between a human and an agent lands in the human's default thread with that agent.
    const thread = await t.hub.store.db.selectFrom('conversation_threads').selectAll().where('id', '=', rows[0]!.conversation_id!).executeTakeFirstOrThrow();
    expect(thread).toMatchObject({ owner_user_id: 1, peer_user_id: agent.id, channel_kind: 'agent_direct', is_default: 1 });
    expect(JSON.parse(rows[0]!.payload)).toBe('hello agent');

    for (const [payload, status, error] of [
      [{ ...body, sender_username: 'ghost', local_id: undefined }, 404, 'sender not found'],
      [{ ...body, receiver_username: 'ghost', local_id: undefined }, 404, 'receiver not found'],
      [{ sender_username: 'admin', receiver_username: agent.username }, 400, 'content is required'],
      [{ ...body, type: 'SYSTEM_LOG' }, 400, 'type must be one of CHAT, AUTH_REQUEST'],
      [{ ...body, local_id: undefined, conversation_id: 999_999 }, 404, 'conversation 999999 not found'],
    ] as const) {
      const bad = await t.api.post('/api/dev/mock/chat', payload, { token: t.adminToken });
      expect(bad.status, error).toBe(status);
      expect(bad.body).toEqual({ error });
    }
  });

  it('resets to exactly the bootstrap state: admin id 1, Butler id 2', async () => {
    const agent = await t.createAgent();
    await t.createMember();
    await t.api.post('/api/messages', { agent_id: agent.username, level: 'INFO', content: 'before reset' }, { token: t.adminToken });
    const res = await t.api.post('/api/dev/mock/reset', undefined, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'reset' });

    const token = await t.login('admin', 'admin-password');
    const users = await t.api.get('/api/users', { token });
    expect(users.body.map((u: { id: number; username: string; role: string }) => [u.id, u.username, u.role])).toEqual([
      [1, 'admin', 'ADMIN'],
      [2, 'Butler', 'BUTLER'],
    ]);
    expect((await t.api.get('/api/users/butler', { token })).body).toMatchObject({ status: 'ONLINE', online: true });
    expect((await t.api.get('/api/messages', { token })).body).toEqual([]);
    expect((await t.api.post('/api/users/agents/test-connection', { api_token: agent.api_token }, { token })).body.ok).toBe(false);
    // The admin's session from before the reset names the same user, so it still works.
    expect((await t.api.get('/api/users', { token: t.adminToken })).status).toBe(200);
    const next = await t.api.post('/api/users/agents', { username: uniqueName('after') }, { token });
    expect(next.body.id).toBe(3);
  });
});
