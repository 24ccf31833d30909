// An older agent's answer lands in the thread the human wrote in (issue 15 item 1): older agents
// never send a conversation_id, end a stream without a payload and fill in sender fields of their own.
// Their chat to a human goes to the thread of that human's latest message to them (the default
// thread only when there is none), in the live frames, the stored row and history alike, also for
// a hub that restarted since the human wrote.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool, type Frame, type WsClient } from '../helpers/wsClient.js';

describeEachDriver("older agents answer in the human's thread", (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  /** Frames exactly as the older Python agent writes them: its own sender fields, no conversation_id. */
  const legacy = (agent: { id: number; username: string }, frame: Record<string, unknown>) => ({
    sender_id: agent.id,
    sender_name: agent.username,
    sender_role: 'AGENT',
    timestamp: '2024-01-01T00:00:00Z',
    ...frame,
  });

  /** The older agent's streamed answer: chunks, the final CHAT with the whole text, an end marker without payload. */
  function streamAnswer(a: WsClient, agent: { id: number; username: string }, to: number, streamId: string, chunks: string[]): void {
    for (const chunk of chunks) a.send(legacy(agent, { type: 'CHAT_STREAM', target_id: to, payload: chunk, stream_id: streamId }));
    a.send(legacy(agent, { type: 'CHAT', target_id: to, payload: chunks.join(''), stream_id: streamId }));
    a.send(legacy(agent, { type: 'CHAT_STREAM_END', target_id: to, stream_id: streamId }));
  }

  /** The frames of one streamed answer as a human receives them. */
  async function receiveAnswer(m: WsClient, streamId: string, chunks: number): Promise<Frame[]> {
    const frames: Frame[] = [];
    for (let i = 0; i < chunks; i++) frames.push(await m.nextWhere((f) => f.type === 'CHAT_STREAM' && f.stream_id === streamId, `chunk ${i} of ${streamId}`));
    frames.push(await m.nextWhere((f) => f.type === 'CHAT' && f.stream_id === streamId, `the final CHAT of ${streamId}`));
    frames.push(await m.nextWhere((f) => f.type === 'CHAT_STREAM_END' && f.stream_id === streamId, `the end of ${streamId}`));
    return frames;
  }

  const threadTexts = async (token: string, id: number) =>
    ((await t.api.get(`/api/chat/threads/${id}/messages`, { token })).body as Frame[]).map((r) => r.payload as string);

  it('files the streamed answer to a message in a non-default thread in that thread', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token);
    const a = await connect(agent.api_token);

    // The default thread exists (the member wrote there first), then the member writes in another one.
    m.send({ type: 'CHAT', target_id: agent.id, payload: 'hello' });
    const first = await a.next('CHAT');
    streamAnswer(a, agent, member.id, 's-0', ['hi']);
    await receiveAnswer(m, 's-0', 1);
    const other = (await t.api.post('/api/chat/threads', { peer_id: agent.id, title: 'Release' }, { token: member.token })).body;
    m.send({ type: 'CHAT', target_id: agent.id, conversation_id: other.id, payload: 'ship it?' });
    expect(await a.nextWhere((f) => f.payload === 'ship it?', 'the question')).toMatchObject({ conversation_id: other.id });

    streamAnswer(a, agent, member.id, 's-1', ['Ship', 'ped']);
    const frames = await receiveAnswer(m, 's-1', 2);
    expect(frames.map((f) => [f.type, f.conversation_id])).toEqual([
      ['CHAT_STREAM', other.id],
      ['CHAT_STREAM', other.id],
      ['CHAT', other.id],
      ['CHAT_STREAM_END', other.id],
    ]);
    expect(frames[2]).toMatchObject({ payload: 'Shipped', sender_id: agent.id, id: expect.any(Number) });
    expect(frames[2]!.timestamp).not.toBe('2024-01-01T00:00:00Z');

    const row = await t.hub.store.db.selectFrom('messages').select('conversation_id').where('id', '=', frames[2]!.id!).executeTakeFirstOrThrow();
    expect(row.conversation_id).toBe(other.id);
    expect(await threadTexts(member.token, other.id)).toEqual(['ship it?', 'Shipped']);
    expect(await threadTexts(member.token, first.conversation_id!)).toEqual(['hello', 'hi']);
  });

  it('answers in the default thread only when the human never wrote; makes none when they wrote elsewhere', async () => {
    const agent = await t.createAgent();
    const quiet = await t.createMember();
    const writer = await t.createMember();
    const [q, w, a] = await Promise.all([connect(quiet.token), connect(writer.token), connect(agent.api_token)]);

    a.send(legacy(agent, { type: 'CHAT', target_id: quiet.id, payload: 'unprompted' }));
    const unprompted = await q.next('CHAT');
    const quietThreads = (await t.api.get(`/api/chat/threads?peer_id=${agent.id}`, { token: quiet.token })).body;
    expect(quietThreads).toMatchObject([{ id: unprompted.conversation_id, is_default: true }]);

    const only = (await t.api.post('/api/chat/threads', { peer_id: agent.id }, { token: writer.token })).body;
    w.send({ type: 'CHAT', target_id: agent.id, conversation_id: only.id, payload: 'question' });
    await a.nextWhere((f) => f.payload === 'question', 'the question');
    a.send(legacy(agent, { type: 'CHAT', target_id: writer.id, payload: 'answer' }));
    expect(await w.nextWhere((f) => f.payload === 'answer', 'the answer')).toMatchObject({ conversation_id: only.id });
    const writerThreads = (await t.api.get(`/api/chat/threads?peer_id=${agent.id}`, { token: writer.token })).body;
    expect(writerThreads.map((th: { id: number }) => th.id)).toEqual([only.id]);
  });

  it('gives each of several humans talking to one agent their own thread', async () => {
    const agent = await t.createAgent();
    const humans = await Promise.all([t.createMember(), t.createMember(), t.createMember()]);
    const a = await connect(agent.api_token);
    const sockets = await Promise.all(humans.map((h) => connect(h.token)));
    const threads = await Promise.all(
      humans.map(async (h) => (await t.api.post('/api/chat/threads', { peer_id: agent.id }, { token: h.token })).body.id as number),
    );

    // Every human writes before the agent answers anyone: the last one to write is not everyone's thread.
    humans.forEach((h, i) => sockets[i]!.send({ type: 'CHAT', target_id: agent.id, conversation_id: threads[i], payload: `question ${i}` }));
    for (let i = 0; i < humans.length; i++) await a.nextWhere((f) => f.payload === `question ${i}`, `question ${i}`);
    humans.forEach((h, i) => streamAnswer(a, agent, h.id, `per-human-${i}`, [`answer `, `${i}`]));
    for (let i = 0; i < humans.length; i++) {
      const frames = await receiveAnswer(sockets[i]!, `per-human-${i}`, 2);
      expect(
        frames.every((f) => f.conversation_id === threads[i]),
        `human ${i}`,
      ).toBe(true);
      expect(await threadTexts(humans[i]!.token, threads[i]!)).toEqual([`question ${i}`, `answer ${i}`]);
    }
  });

  it('keeps a stream in its thread when the human writes in another thread before it ends', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token);
    const a = await connect(agent.api_token);
    const [one, two] = [
      (await t.api.post('/api/chat/threads', { peer_id: agent.id, title: 'one' }, { token: member.token })).body.id as number,
      (await t.api.post('/api/chat/threads', { peer_id: agent.id, title: 'two' }, { token: member.token })).body.id as number,
    ];
    m.send({ type: 'CHAT', target_id: agent.id, conversation_id: one, payload: 'first question' });
    await a.nextWhere((f) => f.payload === 'first question', 'the first question');
    a.send(legacy(agent, { type: 'CHAT_STREAM', target_id: member.id, payload: 'part one, ', stream_id: 'long' }));
    expect(await m.next('CHAT_STREAM')).toMatchObject({ conversation_id: one });

    m.send({ type: 'CHAT', target_id: agent.id, conversation_id: two, payload: 'second question' });
    await a.nextWhere((f) => f.payload === 'second question', 'the second question');
    a.send(legacy(agent, { type: 'CHAT_STREAM', target_id: member.id, payload: 'part two', stream_id: 'long' }));
    a.send(legacy(agent, { type: 'CHAT', target_id: member.id, payload: 'part one, part two', stream_id: 'long' }));
    a.send(legacy(agent, { type: 'CHAT_STREAM_END', target_id: member.id, stream_id: 'long' }));
    const rest = [
      await m.next('CHAT_STREAM'),
      await m.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agent.id, 'the final CHAT'),
      await m.next('CHAT_STREAM_END'),
    ];
    expect(rest.map((f) => f.conversation_id)).toEqual([one, one, one]);

    // The next answer goes where the human wrote last.
    a.send(legacy(agent, { type: 'CHAT', target_id: member.id, payload: 'about the second' }));
    expect(await m.nextWhere((f) => f.payload === 'about the second', 'the next answer')).toMatchObject({ conversation_id: two });
    expect(await threadTexts(member.token, one)).toEqual(['first question', 'part one, part two']);
    expect(await threadTexts(member.token, two)).toEqual(['second question', 'about the second']);
  });

  it('forgets where humans wrote when the dev reset wipes the store (ids are handed out again)', async () => {
    const reset = async () => expect((await t.api.post('/api/dev/mock/reset', {}, { token: t.adminToken })).status).toBe(200);
    const pair = async () => {
      const member = await t.createMember();
      return { member, agent: await t.createAgent() };
    };
    await reset();
    const before = await pair();
    const thread = (await t.api.post('/api/chat/threads', { peer_id: before.agent.id }, { token: before.member.token })).body.id as number;
    const m = await connect(before.member.token);
    m.send({ type: 'CHAT', target_id: before.agent.id, conversation_id: thread, payload: 'before the reset' });
    await m.next('CHAT');
    await reset();
    await clients.closeAll();

    const after = await pair();
    expect([after.member.id, after.agent.id]).toEqual([before.member.id, before.agent.id]);
    const m2 = await connect(after.member.token);
    const a = await connect(after.agent.api_token);
    a.send(legacy(after.agent, { type: 'CHAT', target_id: after.member.id, payload: 'hello again' }));
    const answer = await m2.next('CHAT');
    const threads = (await t.api.get(`/api/chat/threads?peer_id=${after.agent.id}`, { token: after.member.token })).body;
    expect(threads).toMatchObject([{ id: answer.conversation_id, is_default: true }]);
  });

  it('finds the thread from the store after a restart', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const thread = (await t.api.post('/api/chat/threads', { peer_id: agent.id }, { token: member.token })).body.id as number;
    const m = await connect(member.token);
    m.send({ type: 'CHAT', target_id: agent.id, payload: 'in the default thread' });
    await m.next('CHAT');
    m.send({ type: 'CHAT', target_id: agent.id, conversation_id: thread, payload: 'before the restart' });
    await m.nextWhere((f) => f.payload === 'before the restart', 'the echo');
    await clients.closeAll();

    t = await t.restart();
    const m2 = await connect(member.token);
    const a = await connect(agent.api_token);
    streamAnswer(a, agent, member.id, 'after', ['after the ', 'restart']);
    const frames = await receiveAnswer(m2, 'after', 2);
    expect(frames.map((f) => f.conversation_id)).toEqual([thread, thread, thread, thread]);
    expect(await threadTexts(member.token, thread)).toEqual(['before the restart', 'after the restart']);
  });
});
