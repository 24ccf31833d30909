// The A2A endpoint of each card against a real hub, with the official SDK's client as the peer over
// real HTTP, and a real agent on the hub's WebSocket answering: a message becomes a stored CHAT in a
// thread, the agent's stream becomes artifact updates and its final CHAT completes the task; tasks
// are stored (they survive a restart), listed per caller, cancelled, followed; refusals by the hub's
// rules; a v0.3 client through the SDK's compatibility layer.
import { randomUUID } from 'node:crypto';
import { Message, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { a2aClient, followTask } from '../helpers/a2aClient.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, type Frame, type WsClient } from '../helpers/wsClient.js';

const userMessage = (text: string, contextId?: string) =>
  Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...(contextId ? { contextId } : {}) });

const send = (text: string, options: { contextId?: string; returnImmediately?: boolean } = {}) => ({
  message: userMessage(text, options.contextId),
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately: options.returnImmediately ?? false },
  metadata: {},
  tenant: '',
});

const textOfTask = (task: Task) => task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/**
 * The agent answers a chat frame: streamed in `chunks`, then the stored CHAT with the whole text (its
 * `local_id` returned, for the ACK), then the end marker.
 */
function answer(agent: WsClient, chat: Frame, chunks: string[]): string {
  const base = { target_id: chat.sender_id, conversation_id: chat.conversation_id };
  const local_id = `answer-${randomUUID()}`;
  if (chunks.length === 1) {
    agent.send({ type: 'CHAT', payload: chunks[0], local_id, ...base });
    return local_id;
  }
  const stream_id = `s-${randomUUID()}`;
  for (const chunk of chunks) agent.send({ type: 'CHAT_STREAM', payload: chunk, stream_id, ...base });
  agent.send({ type: 'CHAT', payload: chunks.join(''), stream_id, local_id, ...base });
  agent.send({ type: 'CHAT_STREAM_END', payload: '', stream_id, ...base });
  return local_id;
}

const ALL_STATES = TaskState.TASK_STATE_UNSPECIFIED;

describeEachDriver('A2A tasks', (driver) => {
  let t: TestHub;
  let member: { id: number; token: string };
  let other: { id: number; token: string };
  let agentUser: { id: number; username: string; api_token: string };
  let agent: WsClient;
  let client: Client;
  beforeAll(async () => {
    t = await startTestHub(driver);
    member = await t.createMember();
    other = await t.createMember();
    agentUser = await t.createAgent();
    agent = await connectWs(t.url, agentUser.api_token);
    client = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, member.token);
  });
  afterAll(async () => {
    await agent?.close();
    await t.stop();
  });

  it('streams a task: the CHAT reaches the agent in a new thread, its chunks become artifact updates, its final CHAT completes the task', async () => {
    const events = collect(client.sendMessageStream(send('forecast for Oslo?')));
    const chat = await agent.next('CHAT');
    expect(chat).toMatchObject({ payload: 'forecast for Oslo?', sender_id: member.id, target_id: agentUser.id, conversation_id: expect.any(Number) });
    answer(agent, chat, ['Snow ', 'tomorrow, ', '-3 °C']);
    const got = await events;
    const kinds = got.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds.at(-1)).toBe('statusUpdate');
    const artifacts = got.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(artifacts.map((a) => [a.artifact?.parts[0]?.content?.value, a.append, a.lastChunk])).toEqual([
      ['Snow ', false, false],
      ['tomorrow, ', true, false],
      ['-3 °C', true, false],
      ['Snow tomorrow, -3 °C', false, true],
    ]);
    const states = got.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : []));
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const taskId = got[0]!.payload!.$case === 'task' ? got[0]!.payload!.value.id : '';

    const task = await client.getTask({ id: taskId, tenant: '', historyLength: undefined });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(task)).toBe('Snow tomorrow, -3 °C');
    expect(task.artifacts.map((a) => a.parts[0]?.content?.value)).toEqual(['Snow tomorrow, -3 °C']);

    // Counted: the call by method and outcome, the stream closed again, the states the task went through.
    const metrics = String((await t.api.get('/metrics')).body);
    expect(metrics).toContain('hub_a2a_requests_total{method="SendStreamingMessage",outcome="stream"} 1');
    expect(metrics).toContain('hub_a2a_requests_total{method="GetTask",outcome="ok"} 1');
    expect(metrics).toContain('hub_a2a_open_streams 0');
    expect(metrics).toMatch(/hub_a2a_task_states_total\{state="COMPLETED"\} [1-9]/);

    // The exchange is ordinary chat: stored in the thread the task's context names.
    const history = await t.api.get(`/api/chat/threads/${chat.conversation_id}/messages`, { token: member.token });
    expect(history.body.map((m: { payload: string }) => m.payload)).toEqual(['forecast for Oslo?', 'Snow tomorrow, -3 °C']);
  });

  it('answers a blocking SendMessage with the completed task, and keeps one thread per context', async () => {
    const contextId = randomUUID();
    const pending = client.sendMessage(send('first', { contextId }));
    const first = await agent.next('CHAT');
    answer(agent, first, ['one']);
    const done = (await pending) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.contextId).toBe(contextId);
    expect(textOfTask(done)).toBe('one');

    const again = client.sendMessage(send('second', { contextId }));
    const second = await agent.next('CHAT');
    expect(second.conversation_id).toBe(first.conversation_id);
    answer(agent, second, ['two']);
    expect(textOfTask((await again) as Task)).toBe('two');

    const listed = await client.listTasks({ tenant: '', contextId, status: ALL_STATES, pageSize: 10, pageToken: '', statusTimestampAfter: undefined });
    // Newest status first; two tasks that ended in the same millisecond are ordered by id.
    expect(listed.tasks.map((task) => textOfTask(task)).sort()).toEqual(['one', 'two']);
    expect(listed.totalSize).toBe(2);
    const page1 = await client.listTasks({ tenant: '', contextId, status: ALL_STATES, pageSize: 1, pageToken: '', statusTimestampAfter: undefined });
    expect(page1.tasks.map((task) => task.id)).toEqual([listed.tasks[0]!.id]);
    const page2 = await client.listTasks({
      tenant: '',
      contextId,
      status: ALL_STATES,
      pageSize: 1,
      pageToken: page1.nextPageToken,
      statusTimestampAfter: undefined,
    });
    expect(page2.tasks.map((task) => task.id)).toEqual([listed.tasks[1]!.id]);
    expect(page2.nextPageToken).toBe('');
    await expect(
      client.listTasks({ tenant: '', contextId, status: ALL_STATES, pageSize: 1, pageToken: 'not-a-token', statusTimestampAfter: undefined }),
    ).rejects.toThrow(/pageToken/);
  });

  it('keeps a task SUBMITTED while the agent is offline, cancels it, and a later answer does not reopen it', async () => {
    await agent.close();
    const submitted = (await client.sendMessage(send('are you there?', { returnImmediately: true }))) as Task;
    expect(submitted.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    const canceled = await client.cancelTask({ id: submitted.id, tenant: '', metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    // The agent connects: the stored CHAT reaches it (resume), its answer is stored as chat only.
    agent = await connectWs(t.url, agentUser.api_token, { since: 0 });
    const chat = await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'are you there?', 'the queued chat');
    const late = answer(agent, chat, ['yes, late']);
    await agent.nextWhere((f) => f.type === 'ACK' && f.local_id === late, 'the ACK of the late answer');
    const later = await client.getTask({ id: submitted.id, tenant: '', historyLength: undefined });
    expect(later.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('delivers a task to an agent that connects later and completes it then (followed with SubscribeToTask)', async () => {
    await agent.close();
    const submitted = (await client.sendMessage(send('wake up', { returnImmediately: true }))) as Task;
    const { events: followed } = await followTask(client, submitted.id);
    agent = await connectWs(t.url, agentUser.api_token, { since: 0 });
    const chat = await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'wake up', 'the queued chat');
    answer(agent, chat, ['awake']);
    const events = await followed;
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("refuses another user's task, an agent calling another agent, an unknown agent and no credential", async () => {
    const pending = client.sendMessage(send('mine'));
    answer(agent, await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'mine', 'mine'), ['ok']);
    const mine = (await pending) as Task;
    const stranger = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, other.token);
    await expect(stranger.getTask({ id: mine.id, tenant: '', historyLength: undefined })).rejects.toThrow(/not found/i);
    expect((await stranger.listTasks({ tenant: '', contextId: '', status: ALL_STATES, pageToken: '', statusTimestampAfter: undefined })).tasks).toEqual([]);

    const peer = await t.createAgent();
    const rpc = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } };
    const direct = await t.api.post(`/a2a/agents/${agentUser.username}`, rpc, { token: peer.api_token, headers: { 'A2A-Version': '1.0' } });
    expect(direct.status).toBe(403);
    expect(direct.body.error).toMatch(/agents reach other agents only through Butler/);
    expect((await t.api.post('/a2a/agents/nobody-here', rpc, { token: member.token, headers: { 'A2A-Version': '1.0' } })).status).toBe(404);
    expect((await t.api.post(`/a2a/agents/${agentUser.username}`, rpc)).status).toBe(401);
  });

  it("takes a v0.3 message/send from the SDK's v0.3 transport (the card's 0.3 interface)", async () => {
    const legacy = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, member.token, { legacy: true });
    const pending = legacy.sendMessage(send('old client'));
    answer(agent, await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'old client', 'the chat'), ['still served']);
    const done = (await pending) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfTask(done)).toBe('still served');
  });

  it('answers malformed calls with a JSON-RPC error or a 400, never a 500', async () => {
    const call = (rawBody: string | undefined) =>
      t.api.request('POST', `/a2a/agents/${agentUser.username}`, { token: member.token, headers: { 'A2A-Version': '1.0' }, rawBody });
    for (const body of [
      { jsonrpc: '2.0' },
      { jsonrpc: '2.0', id: 1, method: 'Nope' },
      { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { parts: 'x' } } },
    ]) {
      const res = await call(JSON.stringify(body));
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.error.code, JSON.stringify(body)).toBeLessThan(0);
    }
    expect((await call(undefined)).body.error.code).toBe(-32602);
    for (const raw of ['[]', '42', '{"jsonrpc":']) expect((await call(raw)).status, raw).toBe(400);
    const unknownTask = await call(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 'no-such-task' } }));
    expect(unknownTask.body.error.code).toBe(-32001);
  });

  it('keeps tasks across a restart', async () => {
    const pending = client.sendMessage(send('remember me'));
    answer(agent, await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'remember me', 'the chat'), ['remembered']);
    const done = (await pending) as Task;
    await agent.close();
    t = await t.restart();
    const after = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, member.token);
    const task = await after.getTask({ id: done.id, tenant: '', historyLength: undefined });
    expect(textOfTask(task)).toBe('remembered');
    agent = await connectWs(t.url, agentUser.api_token);
  });
});
