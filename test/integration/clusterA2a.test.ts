// A2A tasks followed from another cluster node, with the official SDK's client on each node: a task
// taken by node 1 (its agent answers there) is followed with SubscribeToTask on node 2 until it
// completes, and one cancelled from node 2 is cancelled by node 1, which runs it. Two hub processes
// on one PostgreSQL and the shared Redis.
import { randomUUID } from 'node:crypto';
import { Message, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { a2aClient, followTask } from '../helpers/a2aClient.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const send = (text: string) => ({
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }),
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately: true },
  metadata: {},
  tenant: '',
});
const lastState = (events: StreamResponse[]) =>
  events.flatMap((e) => (e.payload?.$case === 'statusUpdate' || e.payload?.$case === 'task' ? [e.payload.value.status?.state] : [])).at(-1);

describe.skipIf(!inject('pgUrl'))('A2A tasks across nodes [postgres + redis]', () => {
  let c: TestCluster;
  let agent: WsClient | undefined;
  beforeAll(async () => {
    c = await startCluster({ nodes: 2 });
  }, 90_000);
  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await c?.stop();
  });

  it('follows a task on node 2 that runs on node 1, and cancels one from node 2', async () => {
    const [node1, node2] = c.nodes as [(typeof c.nodes)[0], (typeof c.nodes)[0]];
    const member = await c.createMember();
    const worker = await c.createAgent();
    agent = await connectWs(node1.url, worker.api_token);
    const onNode1 = await a2aClient(`${node1.url}/a2a/agents/${worker.username}/`, member.token);
    const onNode2 = await a2aClient(`${node2.url}/a2a/agents/${worker.username}/`, member.token);

    const task = (await onNode1.sendMessage(send('across nodes'))) as Task;
    const { events: followed } = await followTask(onNode2, task.id);
    const chat = await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'across nodes', 'the chat on node 1');
    agent.send({ type: 'CHAT', payload: 'answered on node 1', target_id: chat.sender_id, conversation_id: chat.conversation_id });
    const events = await followed;
    expect(lastState(events)).toBe(TaskState.TASK_STATE_COMPLETED);
    const completed = events.at(-1)!.payload!;
    expect(completed.$case === 'statusUpdate' && completed.value.status?.message?.parts[0]?.content?.value).toBe('answered on node 1');

    const other = (await onNode1.sendMessage(send('cancel me elsewhere'))) as Task;
    await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === 'cancel me elsewhere', 'the second chat');
    const canceled = await onNode2.cancelTask({ id: other.id, tenant: '', metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await onNode1.getTask({ id: other.id, tenant: '', historyLength: undefined })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
