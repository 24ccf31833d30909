// Developer mock endpoints: reset to the bootstrap state, chat inserts, raw agent tokens.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { wsClientPool } from '../helpers/wsClient.js';

describeEachDriver('dev mock', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
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

  it("files a row that names no conversation in the pair's default thread, as the older hub did; an agent's live reply still follows the human's latest message", async () => {
    const agent = await t.createAgent();
    const mock = async (sender: string, receiver: string, content: string, extra: Record<string, unknown> = {}) => {
      const res = await t.api.post('/api/dev/mock/chat', { sender_username: sender, receiver_username: receiver, content, ...extra }, { token: t.adminToken });
      expect(res.status, content).toBe(201);
      return res.body.id as number;
    };
    const conversationOf = async (id: number) =>
      (await t.hub.store.db.selectFrom('messages').select('conversation_id').where('id', '=', id).executeTakeFirstOrThrow()).conversation_id;

    // The admin's latest message to the agent is in a thread of their own, not the default one.
    const side = await t.api.post('/api/chat/threads', { peer_id: agent.id, channel_kind: 'agent_direct', title: 'Side desk' }, { token: t.adminToken });
    expect(side.status).toBe(201);
    expect(await conversationOf(await mock('admin', agent.username, 'over here', { conversation_id: side.body.id }))).toBe(side.body.id);

    // A seeded row from the agent without a conversation_id goes to the default thread all the same.
    const seededReply = await conversationOf(await mock(agent.username, 'admin', 'Initial link established.'));
    const defaults = await t.api.get(`/api/chat/threads?peer_id=${agent.id}`, { token: t.adminToken });
    const defaultThread = (defaults.body as Array<{ id: number; is_default: boolean }>).find((th) => th.is_default)!;
    expect(seededReply).toBe(defaultThread.id);
    expect(seededReply).not.toBe(side.body.id);

    // The live rule is unchanged: the agent's own CHAT without a conversation_id answers where the admin last wrote.
    const socket = await clients.connect(agent.api_token);
    socket.send({ type: 'CHAT', payload: 'live answer', target_id: 1, local_id: 'live-1' });
    const ack = await socket.next('ACK');
    expect(await conversationOf(ack.id as number)).toBe(side.body.id);

    // The older seed script's three rows per agent all land in one thread, the pair's default one.
    const seeded = [
      await mock(agent.username, 'admin', 'Initial link established with the agent.'),
      await mock('admin', agent.username, 'Acknowledged. Report current status.'),
      await mock(agent.username, 'admin', 'Status nominal. Task queue is clear.'),
    ];
    expect(await Promise.all(seeded.map(conversationOf))).toEqual([defaultThread.id, defaultThread.id, defaultThread.id]);
    const listed = await t.api.get(`/api/chat/threads/${defaultThread.id}/messages`, { token: t.adminToken });
    expect((listed.body as Array<{ payload: string }>).map((m) => m.payload)).toEqual([
      'Initial link established.',
      'Initial link established with the agent.',
      'Acknowledged. Report current status.',
      'Status nominal. Task queue is clear.',
    ]);
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
