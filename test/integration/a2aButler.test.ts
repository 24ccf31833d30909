// Tasks sent to the hub's own card, Butler, over A2A with the official SDK's client: Butler's turn
// maps to the task's states, and its approval flow to AUTH_REQUIRED until a human decides (approved:
// the agent's answer completes the task; refused: REJECTED). Butler runs in safe mode here (no model).
import { randomUUID } from 'node:crypto';
import { Message, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { a2aClient, followTask } from '../helpers/a2aClient.js';
import { BUTLER_ID } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const send = (text: string, returnImmediately = false) => ({
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }),
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: {},
  tenant: '',
});
const statusText = (task: Task) => task.status?.message?.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('') ?? '';
const states = (events: StreamResponse[]) => events.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : []));
/** The state a followed task ended in: its last status update, or the task itself when it had ended before the subscription began. */
const finalState = (events: StreamResponse[]) =>
  events.flatMap((e) => (e.payload?.$case === 'statusUpdate' || e.payload?.$case === 'task' ? [e.payload.value.status?.state] : [])).at(-1);

describeEachDriver('A2A tasks to Butler', (driver) => {
  let t: TestHub;
  let member: { id: number; token: string };
  let worker: { id: number; username: string; api_token: string };
  let agent: WsClient;
  let butler: Client;
  beforeAll(async () => {
    t = await startTestHub(driver, { BUTLER_AGENT_REPLY_TIMEOUT: '5s' });
    member = await t.createMember();
    worker = await t.createAgent();
    agent = await connectWs(t.url, worker.api_token);
    butler = await a2aClient(t.url, member.token);
  });
  afterAll(async () => {
    await agent.close();
    await t.stop();
  });

  it("completes a question with Butler's streamed answer", async () => {
    const events: StreamResponse[] = [];
    for await (const event of butler.sendMessageStream(send('hello Butler'))) events.push(event);
    expect(states(events)).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const last = events.at(-1)!.payload!;
    expect(last.$case === 'statusUpdate' && last.value.status?.message?.parts[0]?.content?.value).toMatch(/safe mode/);
  });

  it("waits in AUTH_REQUIRED while a command waits for approval, and completes with the agent's answer once approved", async () => {
    const stream = butler.sendMessageStream(send(`@${worker.username} restart the cache`));
    const events: StreamResponse[] = [];
    let actionId: string | undefined;
    for await (const event of stream) {
      events.push(event);
      const p = event.payload;
      if (p?.$case === 'statusUpdate' && p.value.status?.state === TaskState.TASK_STATE_AUTH_REQUIRED && actionId === undefined) {
        expect(statusText({ status: p.value.status } as Task)).toContain('restart the cache');
        const requests = await t.api.get('/api/chat/auth/requests?status=PENDING', { token: member.token });
        actionId = requests.body[0].action_id;
        expect((await t.api.post('/api/chat/auth/response', { action_id: actionId, approved: true }, { token: member.token })).status).toBe(200);
        const directive = await agent.nextWhere((f) => f.type === 'CHAT' && f.sender_id === BUTLER_ID, 'the directive');
        agent.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'cache restarted', stream_id: directive.stream_id });
      }
    }
    const seen = states(events);
    expect(seen[0]).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const done = events.at(-1)!.payload!;
    expect(done.$case === 'statusUpdate' && done.value.status?.message?.parts[0]?.content?.value).toContain('cache restarted');
  });

  it('answers a blocking SendMessage at AUTH_REQUIRED, and a refusal makes the task REJECTED', async () => {
    const waiting = (await butler.sendMessage(send(`@${worker.username} drop the table`))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED);
    const { events: followed } = await followTask(butler, waiting.id);
    const requests = await t.api.get('/api/chat/auth/requests?status=PENDING', { token: member.token });
    expect((await t.api.post('/api/chat/auth/response', { action_id: requests.body[0].action_id, approved: false }, { token: member.token })).status).toBe(200);
    // The subscriber hears the end as it happens (the store follows the SDK's own drain of the events).
    const events = await followed;
    expect(finalState(events)).toBe(TaskState.TASK_STATE_REJECTED);
    const last = events.at(-1)!.payload!;
    const task = last.$case === 'task' ? last.value : ({ status: last.$case === 'statusUpdate' ? last.value.status : undefined } as Task);
    expect(statusText(task)).toBe('a human refused the command');
  });

  it('takes a task from an agent to Butler (agents reach other agents through Butler)', async () => {
    const fromAgent = await a2aClient(t.url, worker.api_token);
    const done = (await fromAgent.sendMessage(send('hello from an agent'))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The agent's own socket stays its presence: it is still online, and still the one that hears Butler.
    expect((await t.api.get(`/api/users/${worker.id}`, { token: t.adminToken })).body.online).toBe(true);
  });
});
