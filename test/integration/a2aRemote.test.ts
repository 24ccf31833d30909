// A2A agents joining the hub, against a real hub with an agent built on the official SDK
// (@a2a-js/sdk's server classes over node:http on loopback) as the peer: an admin registers it by its
// card URL; it is ONLINE while its card answers; a human chats with it over the WebSocket and gets its
// streamed answer as CHAT_STREAM / CHAT, stored; Butler commands it through an approval; it goes
// OFFLINE when it goes away and ONLINE again when it is back. Refusals: a member registering (403),
// a bad body (400), an oversized card, a redirect to another host.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startA2aPeer, type A2aPeer } from '../helpers/a2aPeer.js';
import { askButler, nextAnswer } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { startFakeModel, textReply, type FakeModel } from '../helpers/fakeModel.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { connectWs, type Frame, type WsClient } from '../helpers/wsClient.js';

const CREDENTIAL = 'peer-credential-7f3a9c1e5b';

const presence = (userId: number, online: boolean) => (f: Frame) =>
  f.type === 'PRESENCE' && (f.payload as { user_id: number }).user_id === userId && (f.payload as { online: boolean }).online === online;

/** A loopback server answering every request with `handler`. */
async function server(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const s: Server = createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => s.close(() => resolve())) };
}

describeEachDriver('A2A agents joining the hub', (driver) => {
  let fake: FakeModel;
  let t: TestHub;
  let peer: A2aPeer;
  let admin: WsClient;
  let agent: { id: number; username: string };

  beforeAll(async () => {
    fake = await startFakeModel();
    t = await startTestHub(driver, {
      BUTLER_BASE_URL: fake.baseUrl,
      BUTLER_MODEL: 'fake-model',
      BUTLER_AGENT_REPLY_TIMEOUT: '5s',
      A2A_AGENT_CHECK_INTERVAL: '200ms',
    });
    peer = await startA2aPeer({ name: 'remote-echo' });
    admin = await connectWs(t.url, t.adminToken);
  });
  afterAll(async () => {
    await admin?.close();
    await peer?.stop();
    await t.stop();
    await fake.close();
  });

  it('registers an SDK agent by its card URL: no api_token, the credential kept out of answers and logs, and the agent ONLINE', async () => {
    const username = uniqueName('remote');
    const res = await t.api.post(
      '/api/users/agents',
      { username, runtime_kind: 'a2a', card_url: peer.cardUrl, credential: CREDENTIAL },
      { token: t.adminToken },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username, role: 'AGENT', runtime_kind: 'a2a', card_url: peer.cardUrl });
    expect(res.body).not.toHaveProperty('api_token');
    expect(res.body.description).toContain('remote-echo, an A2A agent built with @a2a-js/sdk');
    agent = { id: res.body.id as number, username };
    await admin.nextWhere(presence(agent.id, true), 'the remote agent ONLINE');
    const listed = await t.api.get(`/api/users/agents?q=${username}`, { token: t.adminToken });
    expect(listed.body[0]).toMatchObject({ id: agent.id, online: true, status: 'ONLINE', runtime_kind: 'a2a' });
    expect(JSON.stringify(listed.body)).not.toContain(CREDENTIAL);
    expect(JSON.stringify(t.logs)).not.toContain(CREDENTIAL);
  });

  it("carries a human's chat to the agent and its streamed answer back as CHAT_STREAM and a stored CHAT from the agent", async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    try {
      const received = peer.nextMessage();
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'hello over A2A', local_id: 'a2a-1' });
      const echo = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === member.id, 'the echo of the chat');
      const asked = await received;
      expect(asked).toMatchObject({ text: 'hello over A2A', authorization: `Bearer ${CREDENTIAL}` });
      const first = await ws.nextWhere((f) => f.type === 'CHAT_STREAM' && f.sender_id === agent.id, 'the first chunk');
      expect(first).toMatchObject({ payload: 'echo: ', target_id: member.id, stream_id: expect.any(String) });
      const second = await ws.nextWhere((f) => f.type === 'CHAT_STREAM' && f.sender_id === agent.id, 'the second chunk');
      expect(second).toMatchObject({ payload: 'hello over A2A', stream_id: first.stream_id });
      const final = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer');
      expect(final).toMatchObject({ payload: 'echo: hello over A2A', target_id: member.id, stream_id: first.stream_id, id: expect.any(Number) });
      expect(final.conversation_id).toBe(echo.conversation_id);
      await ws.nextWhere((f) => f.type === 'CHAT_STREAM_END' && f.stream_id === first.stream_id, 'the end of the stream');
      const history = await t.api.get(`/api/chat/history/${agent.id}`, { token: member.token });
      expect(history.body.map((m: { payload: unknown; sender_id: number }) => [m.sender_id, m.payload])).toEqual([
        [member.id, 'hello over A2A'],
        [agent.id, 'echo: hello over A2A'],
      ]);
      // The next message in the thread is the same A2A context.
      const again = peer.nextMessage();
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'and again', conversation_id: final.conversation_id });
      expect((await again).contextId).toBe(asked.contextId);
      await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id && f.payload === 'echo: and again', 'the second answer');
    } finally {
      await ws.close();
    }
  });

  it('lets Butler command the agent once a human approves, and brings its answer back', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    try {
      fake.enqueue(
        {
          steps: [
            { toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: agent.id, command: 'rotate the logs', reasoning: 'asked' }) } },
          ],
        },
        textReply('I asked for your approval.'),
      );
      const echo = await askButler(ws, 'please rotate the logs');
      const request = await ws.next('AUTH_REQUEST');
      expect(request.payload).toMatchObject({ target_agent_id: agent.id, command: 'rotate the logs', status: 'PENDING' });
      expect((await nextAnswer(ws)).text).toBe('I asked for your approval.');
      const received = peer.nextMessage();
      await t.api.post('/api/chat/auth/response', { action_id: (request.payload as { action_id: string }).action_id, approved: true }, { token: member.token });
      expect(await received).toMatchObject({ text: 'rotate the logs', directive: true });
      expect((await nextAnswer(ws, { conversationId: echo.conversation_id })).text).toBe(
        `${agent.username} carried out \`rotate the logs\`:\n\necho: rotate the logs`,
      );
    } finally {
      await ws.close();
    }
  });

  it('turns the agent OFFLINE when its card stops answering and ONLINE again when it is back', async () => {
    await peer.stop();
    const gone = await admin.nextWhere(presence(agent.id, false), 'the remote agent OFFLINE', 10_000);
    expect(gone.payload).toMatchObject({ status: 'OFFLINE' });
    await peer.listen();
    await admin.nextWhere(presence(agent.id, true), 'the remote agent ONLINE again', 10_000);
    const again = await t.api.get(`/api/users/${agent.id}`, { token: t.adminToken });
    expect(again.body).toMatchObject({ online: true, status: 'ONLINE' });
  });

  it('keeps chat sent while the agent is OFFLINE and carries it once, in order, when the agent is back; the human gets its answers', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    try {
      await peer.stop();
      await admin.nextWhere(presence(agent.id, false), 'the remote agent OFFLINE', 10_000);
      const before = peer.received.length;
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'missed one' });
      const first = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === member.id, 'the echo of the first chat');
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'missed two', conversation_id: first.conversation_id });
      await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === member.id && f.payload === 'missed two', 'the echo of the second chat');
      const stored = await t.api.get(`/api/chat/history/${agent.id}`, { token: member.token });
      expect(stored.body.map((m: { payload: unknown }) => m.payload)).toEqual(['missed one', 'missed two']);
      expect((await t.api.get(`/api/users/${agent.id}`, { token: t.adminToken })).body).toMatchObject({ online: false, status: 'OFFLINE' });
      expect(peer.received.length).toBe(before);

      await peer.listen();
      await admin.nextWhere(presence(agent.id, true), 'the remote agent ONLINE again', 10_000);
      const one = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer to the first missed chat');
      expect(one).toMatchObject({ payload: 'echo: missed one', conversation_id: first.conversation_id });
      const two = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer to the second missed chat');
      expect(two.payload).toBe('echo: missed two');

      // Away and back once more, then a new chat in the thread: the missed ones are not carried again.
      await peer.stop();
      await admin.nextWhere(presence(agent.id, false), 'the remote agent OFFLINE again', 10_000);
      await peer.listen();
      await admin.nextWhere(presence(agent.id, true), 'the remote agent ONLINE a third time', 10_000);
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'after', conversation_id: first.conversation_id });
      const after = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer to the chat after');
      expect(after.payload).toBe('echo: after');
      expect(peer.received.slice(before).map((m) => m.text)).toEqual(['missed one', 'missed two', 'after']);
    } finally {
      await ws.close();
    }
  });

  it('tells the human in a CHAT from the agent when its executor throws (the SDK fails the task with the reason), and keeps the credential out of it', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    peer.failWith = 'throw';
    try {
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'this will fail' });
      const answer = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the failure');
      expect(answer.payload).toBe("(the agent's task ended TASK_STATE_FAILED: Agent execution error: the model behind the agent is down)");
      expect(JSON.stringify(answer)).not.toContain(CREDENTIAL);
    } finally {
      peer.failWith = undefined;
      await ws.close();
    }
  });

  it("brings a JSON-RPC error back to Butler's request as the agent's answer (the request's stream id), so the human hears it", async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    try {
      fake.enqueue(
        {
          steps: [
            { toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: agent.id, command: 'spend the quota', reasoning: 'asked' }) } },
          ],
        },
        textReply('I asked for your approval.'),
      );
      const echo = await askButler(ws, 'please spend the quota');
      const request = await ws.next('AUTH_REQUEST');
      expect((await nextAnswer(ws)).text).toBe('I asked for your approval.');
      peer.failWith = 'rpc-error';
      await t.api.post('/api/chat/auth/response', { action_id: (request.payload as { action_id: string }).action_id, approved: true }, { token: member.token });
      expect((await nextAnswer(ws, { conversationId: echo.conversation_id })).text).toBe(
        `${agent.username} carried out \`spend the quota\`:\n\n(the call to the agent failed: quota exceeded for this caller)`,
      );
      const history = await t.api.get(`/api/chat/history/${agent.id}`, { token: t.adminToken });
      expect(JSON.stringify(history.body)).not.toContain(CREDENTIAL);
    } finally {
      peer.failWith = undefined;
      await ws.close();
    }
  });

  it('keeps a chat whose call failed because the agent went away (no failure message) and carries it when the agent is back', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    try {
      const before = peer.received.length;
      peer.failWith = 'vanish';
      ws.send({ type: 'CHAT', target_id: agent.id, payload: 'cut off' });
      await admin.nextWhere(presence(agent.id, false), 'the remote agent OFFLINE after going away mid-call', 10_000);
      const history = await t.api.get(`/api/chat/history/${agent.id}`, { token: member.token });
      expect(history.body.map((m: { sender_id: number; payload: unknown }) => [m.sender_id, m.payload])).toEqual([[member.id, 'cut off']]);
      await peer.listen();
      const answer = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer once the agent is back', 10_000);
      expect(answer.payload).toBe('echo: cut off');
      expect(peer.received.slice(before).map((m) => m.text)).toEqual(['cut off']);
    } finally {
      peer.failWith = undefined;
      await ws.close();
    }
  });

  it('remembers what was carried across a restart: the new hub carries only the chat the agent missed, once', async () => {
    const member = await t.createMember();
    let ws = await connectWs(t.url, member.token);
    const before = peer.received.length;
    await peer.stop();
    await admin.nextWhere(presence(agent.id, false), 'the remote agent OFFLINE before the restart', 10_000);
    ws.send({ type: 'CHAT', target_id: agent.id, payload: 'missed across a restart' });
    const sent = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === member.id, 'the echo of the chat');
    await ws.close();
    await admin.close();
    t = await t.restart();
    admin = await connectWs(t.url, t.adminToken);
    ws = await connectWs(t.url, await t.login(member.username, 'member-password'));
    try {
      await peer.listen();
      const answer = await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the answer after the restart', 10_000);
      expect(answer).toMatchObject({ payload: 'echo: missed across a restart', conversation_id: sent.conversation_id });
      expect(peer.received.slice(before).map((m) => m.text)).toEqual(['missed across a restart']);
      // A stop stores the marks of the chats carried before it ends.
      await ws.close();
      await admin.close();
      t = await t.restart();
      admin = await connectWs(t.url, t.adminToken);
      const mark = await t.hub.store.db.selectFrom('a2a_remote_agents').select('carried_id').where('user_id', '=', agent.id).executeTakeFirstOrThrow();
      expect(mark.carried_id).toBe(sent.id);
    } finally {
      await ws.close();
    }
  });

  it('refuses a member (403) and a bad body (400, naming the field)', async () => {
    const member = await t.createMember();
    const denied = await t.api.post('/api/users/agents', { username: uniqueName('m'), runtime_kind: 'a2a', card_url: peer.cardUrl }, { token: member.token });
    expect(denied.status).toBe(403);
    const noUrl = await t.api.post('/api/users/agents', { username: uniqueName('r'), runtime_kind: 'a2a' }, { token: t.adminToken });
    expect(noUrl.status).toBe(400);
    expect(noUrl.body.error).toContain('card_url');
    expect(noUrl.body.error).toContain('is required when runtime_kind is "a2a"');
    const withToken = await t.api.post(
      '/api/users/agents',
      { username: uniqueName('r'), runtime_kind: 'a2a', card_url: peer.cardUrl, api_token: 'a'.repeat(40) },
      { token: t.adminToken },
    );
    expect(withToken.status).toBe(400);
    expect(withToken.body.error).toContain('api_token');
    const notUrl = await t.api.post('/api/users/agents', { username: uniqueName('r'), runtime_kind: 'a2a', card_url: 'not a url' }, { token: t.adminToken });
    expect(notUrl).toMatchObject({ status: 400, body: { error: 'card_url: the card URL is not a URL' } });
  });

  it('refuses an oversized card and a card URL that redirects to another host (400 with the reason)', async () => {
    const big = await server((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ name: 'x'.repeat(300 * 1024) })));
    const redirect = await server((_req, res) => res.writeHead(302, { Location: peer.cardUrl }).end());
    try {
      const tooBig = await t.api.post(
        '/api/users/agents',
        { username: uniqueName('r'), runtime_kind: 'a2a', card_url: `${big.url}/card` },
        { token: t.adminToken },
      );
      expect(tooBig).toMatchObject({ status: 400, body: { error: 'card_url: the card is larger than 262144 bytes' } });
      const moved = await t.api.post(
        '/api/users/agents',
        { username: uniqueName('r'), runtime_kind: 'a2a', card_url: `${redirect.url}/card` },
        { token: t.adminToken },
      );
      expect(moved.status).toBe(400);
      expect(moved.body.error).toContain('redirects to another host');
    } finally {
      await big.close();
      await redirect.close();
    }
  });
});

describeEachDriver('A2A agents joining a production hub', (driver) => {
  let t: TestHub;
  let peer: A2aPeer;
  beforeAll(async () => {
    t = await startTestHub(driver, { APP_ENV: 'production' });
    peer = await startA2aPeer();
  });
  afterAll(async () => {
    await peer?.stop();
    await t?.stop();
  });

  it('refuses a card URL on a loopback address (A2A_ALLOW_PRIVATE_NETWORK is off by default), naming the address and the setting', async () => {
    const res = await t.api.post('/api/users/agents', { username: uniqueName('r'), runtime_kind: 'a2a', card_url: peer.cardUrl }, { token: t.adminToken });
    expect(res).toMatchObject({
      status: 400,
      body: { error: "card_url: the card URL's address 127.0.0.1 is a private or internal address; set A2A_ALLOW_PRIVATE_NETWORK=true to allow it" },
    });
    expect(peer.received).toEqual([]);
    const listed = await t.api.get('/api/users/agents?q=r-', { token: t.adminToken });
    expect(listed.body.filter((a: { runtime_kind: string }) => a.runtime_kind === 'a2a')).toEqual([]);
  });
});
