// The typed client against a real hub: confirmations by ACK (agents) and by echo (humans), refusals
// with the hub's reasons, streams (and those a dropped connection cut), directives from Butler, resume
// with `since`, close codes the hub really sends, and the REST helper.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ClientStoppedError, FrameRefusedError, createRestClient, HubRequestError } from '../../src/client/index.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubClientPool, isChatFrom, sendDirective } from '../helpers/hubClients.js';
import { startTcpRelay } from '../helpers/tcpRelay.js';

describeEachDriver('typed hub client', (driver) => {
  let t: TestHub;
  const clients = hubClientPool(() => t);

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('sends chat and telemetry as an agent: each send resolves with the stored id from its ACK', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const m = await clients.open(member.token);

    const logged = await a.client.log('SUCCESS', 'agent ready');
    const said = await a.client.send({ type: 'CHAT', payload: 'hello member', target_id: member.id });
    const reported = await a.client.report('WEATHER_UPDATE', { location: 'Oslo', temperature_c: -2 });
    expect(logged.id).toBeLessThan(said.id!);
    expect(said.id).toBeLessThan(reported.id!);
    expect(a.client.pending).toBe(0);

    const chat = await m.waitFor((f) => f.type === 'CHAT' && f.id === said.id, 'the chat at the member');
    expect(chat).toMatchObject({ payload: 'hello member', sender_id: agent.id, local_id: said.local_id });
    await m.waitFor((f) => f.type === 'WEATHER_UPDATE' && f.id === reported.id, 'the weather update at the member');
    expect(m.client.lastId).toBe(reported.id);
  });

  it('confirms a human’s sends by their echo, and hands incoming chat to onChat without the echo', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const m = await clients.open(member.token);
    expect(m.client.identity).toEqual({ kind: 'human', userId: member.id, username: member.username });
    const heard: string[] = [];
    a.client.onChat((f) => void heard.push(f.payload));
    const mine: string[] = [];
    m.client.onChat((f) => void mine.push(f.payload));

    const sent = await m.client.send({ type: 'CHAT', payload: 'hi agent', target_id: agent.id });
    expect(sent.id).toBeGreaterThan(0);
    await a.waitFor((f) => f.type === 'CHAT' && f.id === sent.id, 'the chat at the agent');
    expect(heard).toEqual(['hi agent']);
    expect(mine).toEqual([]);
  });

  it('rejects a frame the hub refuses with its code and message, and one the protocol forbids before sending', async () => {
    const agent = await t.createAgent();
    const a = await clients.open(agent.api_token);
    const toNobody = a.client.send({ type: 'CHAT', payload: 'x', target_id: 999_999 });
    await expect(toNobody).rejects.toBeInstanceOf(FrameRefusedError);
    await expect(toNobody).rejects.toMatchObject({ code: 'not_found', message: 'target user 999999 not found' });

    const badWeather = a.client.report('WEATHER_UPDATE', { location: 'Oslo' } as never);
    await expect(badWeather).rejects.toMatchObject({ code: 'invalid_payload', message: 'payload.temperature_c is required' });
    const tooBig = a.client.send({ type: 'CHAT', payload: 'x'.repeat(2 << 20) });
    await expect(tooBig).rejects.toMatchObject({ code: 'frame_too_large' });
    // The connection is still fine.
    expect((await a.client.log('INFO', 'still here')).id).toBeGreaterThan(0);
  });

  it('streams a reply: chunks, the final CHAT with the whole text, then the end marker, on one stream_id', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const m = await clients.open(member.token);
    const question = await m.client.send({ type: 'CHAT', payload: 'tell me', target_id: agent.id });
    const frame = await a.waitFor(isChatFrom(member.id), 'the question');

    const writer = a.client.stream(frame as never);
    await writer.write('one ');
    await writer.write('two');
    const final = await writer.end();
    const end = await m.waitFor((f) => f.type === 'CHAT_STREAM_END', 'the end marker');
    const stream = m.frames.filter((f) => 'stream_id' in f && f.stream_id === writer.streamId);
    expect(stream.map((f) => [f.type, 'payload' in f ? f.payload : undefined])).toEqual([
      ['CHAT_STREAM', 'one '],
      ['CHAT_STREAM', 'two'],
      ['CHAT', 'one two'],
      ['CHAT_STREAM_END', ''],
    ]);
    expect(stream[2]).toMatchObject({ id: final.id, conversation_id: (frame as { conversation_id?: number }).conversation_id });
    expect(end).toMatchObject({ stream_id: writer.streamId });
    expect(question.id).toBeLessThan(final.id!);
  });

  it('reports the streams open when its connection drops, once each, not one that ended, nor on its own close', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const relay = await startTcpRelay(t.hub.port);
    try {
      const a = await clients.open(agent.api_token);
      const m = await clients.open(member.token, { url: relay.url });
      await m.client.send({ type: 'CHAT', payload: 'tell me twice', target_id: agent.id });
      const question = await a.waitFor(isChatFrom(member.id), 'the question');
      const cut = a.client.stream(question as never);
      const whole = a.client.stream(question as never);
      await cut.write('half ');
      await whole.write('all ');
      await whole.end();
      await m.waitFor((f) => f.type === 'CHAT_STREAM_END' && f.stream_id === whole.streamId, 'the end of the whole stream');
      await m.waitFor((f) => f.type === 'CHAT_STREAM' && f.stream_id === cut.streamId, 'the chunk of the cut stream');

      relay.drop();
      await m.waitForInterrupted(() => true, 'a stream interrupted by the drop');
      expect(m.interrupted).toEqual([{ stream_id: cut.streamId, sender_id: agent.id, conversation_id: question.conversation_id }]);
      // Back (resuming), the stream goes on and ends as usual.
      const reopened = (s: (typeof m.statuses)[number]) => {
        const dropped = m.statuses.findIndex((p) => p.state === 'waiting');
        return s.state === 'open' && dropped >= 0 && m.statuses.indexOf(s) > dropped;
      };
      await m.waitForStatus(reopened, 'the member reconnected', 10_000);
      await cut.write('more ');
      await m.waitFor((f) => f.type === 'CHAT_STREAM' && f.stream_id === cut.streamId && f.payload === 'more ', 'the chunk after the reconnect');
      // Closing the client with a stream open is no interruption.
      await m.client.close();
      expect(m.interrupted).toHaveLength(1);
      await cut.end();
    } finally {
      await relay.close();
    }
  });

  it('answers Butler’s directive with a CHAT to Butler carrying the directive’s stream_id', async () => {
    const agent = await t.createAgent();
    const a = await clients.open(agent.api_token);
    const commands: string[] = [];
    a.client.onDirective(({ command }) => {
      commands.push(command);
      return `done: ${command}`;
    });
    const chats: string[] = [];
    a.client.onChat((f) => void chats.push(f.payload));
    const admin = await clients.open(t.adminToken);

    const streamId = await sendDirective(t, agent.id, 'report status');
    const monitor = await admin.waitFor((f) => f.type === 'BUTLER_AGENT_MESSAGE' && f.sender_id === agent.id, 'the answer’s monitor copy');
    expect(monitor).toMatchObject({ target_id: 2, payload: { payload: 'done: report status', sender_role: 'AGENT' } });
    const history = await admin.client.rest.chat.butlerAgent(agent.id);
    expect(history.map((r) => [r.sender_id, r.payload, r.stream_id])).toEqual([
      [2, '[DIRECTIVE] report status', streamId],
      [agent.id, 'done: report status', streamId],
    ]);
    expect(commands).toEqual(['report status']);
    expect(chats).toEqual([]);
  });

  it('answers a directive whose handler fails with the failure, so Butler is never left waiting', async () => {
    const agent = await t.createAgent();
    const a = await clients.open(agent.api_token);
    a.client.onDirective(() => {
      throw new Error('disk on fire');
    });
    const admin = await clients.open(t.adminToken);
    const streamId = await sendDirective(t, agent.id, 'explode');
    await a.waitForWarning(/the directive "explode" failed: disk on fire/);
    const monitor = await admin.waitFor((f) => f.type === 'BUTLER_AGENT_MESSAGE' && f.sender_id === agent.id, 'the failure answer');
    expect(monitor).toMatchObject({ payload: { payload: 'directive failed: disk on fire' } });
    const rows = await admin.client.rest.chat.butlerAgent(agent.id);
    expect(rows.at(-1)).toMatchObject({ stream_id: streamId });
  });

  it('resumes with since: what arrived while it was away, once, in order', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const m1 = await clients.open(member.token);
    const first = await a.client.send({ type: 'CHAT', payload: 'before', target_id: member.id });
    await m1.waitFor((f) => f.type === 'CHAT' && f.id === first.id, 'the first chat');
    const cursor = m1.client.lastId!;
    await m1.client.close();

    const missed: Array<number | undefined> = [];
    for (const text of ['while away 1', 'while away 2']) missed.push((await a.client.send({ type: 'CHAT', payload: text, target_id: member.id })).id);
    const m2 = await clients.open(member.token, { since: cursor });
    await m2.waitFor((f) => f.type === 'CHAT' && f.id === missed[1], 'the second missed chat');
    expect(m2.frames.filter((f) => f.type === 'CHAT').map((f) => f.id)).toEqual(missed);
  });

  it('stops with one readable line when the hub refuses the token, and fails what was queued', async () => {
    const r = await clients.open('not-a-registered-token-at-all', { connect: false });
    const queued = r.client.log('INFO', 'never sent');
    await expect(r.client.connect()).rejects.toThrow('the hub refused the token (invalid token)');
    expect(r.client.state).toBe('stopped');
    await expect(queued).rejects.toBeInstanceOf(ClientStoppedError);
    expect(r.statuses.at(-1)).toEqual({ state: 'stopped', message: 'the hub refused the token (invalid token); stopping', attempt: 0 });
  });

  it('stops when the hub closes with 4001 after the token is rotated', async () => {
    const agent = await t.createAgent();
    const a = await clients.open(agent.api_token);
    const rest = createRestClient({ url: t.url, token: t.adminToken });
    await rest.agents.rotateToken(agent.id);
    await a.client.stopped();
    expect(a.statuses.at(-1)?.message).toMatch(/^closed by the hub \(4001, the credential stopped working .*\); stopping: it needs a new credential$/);
  });

  it('asks the REST helper for what an agent may see, and reports refusals with the hub’s text', async () => {
    const agent = await t.createAgent();
    const rest = createRestClient({ url: t.url, token: agent.api_token });
    expect(await rest.ping()).toEqual({ message: 'pong' });
    const butler = await rest.agents.butler();
    expect(butler).toMatchObject({ id: 2, role: 'BUTLER' });
    const listed = await rest.agents.list({ q: agent.username });
    expect(listed.items.map((u) => u.id)).toEqual([agent.id]);
    expect(listed.total).toBe(1);
    const refused = rest.users.list();
    await expect(refused).rejects.toBeInstanceOf(HubRequestError);
    await expect(refused).rejects.toMatchObject({ status: 403, message: 'admin access required' });
    const admin = createRestClient({ url: t.url });
    const session = await admin.login('admin', 'admin-password');
    expect(session.user).toMatchObject({ id: 1, role: 'ADMIN' });
    await expect(admin.login('admin', 'wrong-password')).rejects.toMatchObject({ status: 401, message: 'invalid credentials' });
  });
});
