// The cap on a caller's open A2A tasks (A2A_MAX_OPEN_TASKS), against a real hub with the official
// SDK's client as the peer: tasks to an offline agent stay SUBMITTED and stored, so the caller's next
// new task past the cap is refused with JSON-RPC error -32000 naming the limit (both ways of sending,
// v1.0 and v0.3), while another caller is not affected; a cancelled task makes room again, and calls
// sent side by side cannot all slip past one count.
import { randomUUID } from 'node:crypto';
import { Message, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { a2aClient } from '../helpers/a2aClient.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const MAX = 3;

const send = (text: string) => ({
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }),
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately: true },
  metadata: {},
  tenant: '',
});

/** What the SDK's client threw: the JSON-RPC code and message it read. */
async function refusal(call: Promise<unknown>): Promise<{ code: unknown; message: string }> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { envelopeCode?: number; code?: number; message?: string } | undefined;
  if (err === undefined) throw new Error('the call was not refused');
  return { code: err.envelopeCode ?? err.code, message: String(err.message) };
}

describeEachDriver('A2A open-task cap', (driver) => {
  let t: TestHub;
  let agent: { id: number; username: string; api_token: string };
  const clientOf = (token: string, legacy = false): Promise<Client> => a2aClient(`${t.url}/a2a/agents/${agent.username}/`, token, { legacy });
  beforeAll(async () => {
    t = await startTestHub(driver, { A2A_MAX_OPEN_TASKS: String(MAX) });
    // Registered, never connected: every task to it stays SUBMITTED.
    agent = await t.createAgent();
  });
  afterAll(async () => {
    await t.stop();
  });

  it('refuses the new task past the cap with -32000 naming the limit, on SendMessage and SendStreamingMessage, v1.0 and v0.3', async () => {
    const member = await t.createMember();
    const client = await clientOf(member.token);
    const opened: Task[] = [];
    for (let i = 0; i < MAX; i++) opened.push((await client.sendMessage(send(`job ${i}`))) as Task);
    expect(opened.map((task) => task.status?.state)).toEqual(Array(MAX).fill(TaskState.TASK_STATE_SUBMITTED));

    const refused = await refusal(client.sendMessage(send('one too many')));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toContain(`a caller may have ${MAX} tasks open at once (A2A_MAX_OPEN_TASKS)`);
    const stream = client.sendMessageStream(send('one too many, streamed'));
    expect(await refusal(stream.next())).toEqual(refused);
    expect(await refusal((await clientOf(member.token, true)).sendMessage(send('one too many, v0.3')))).toMatchObject({ code: -32000 });

    // Nothing more was stored: the caller's list holds the three.
    const listed = await client.listTasks({
      tenant: '',
      contextId: '',
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 100,
      pageToken: '',
      historyLength: undefined,
      statusTimestampAfter: undefined,
      includeArtifacts: false,
    });
    expect(listed.tasks.map((task) => task.id).sort()).toEqual(opened.map((task) => task.id).sort());
    const metrics = String((await t.api.get('/metrics')).body);
    expect(metrics).toMatch(/hub_a2a_requests_total\{method="SendMessage",outcome="error"\} 1$/m);

    // Another caller has a cap of its own.
    const other = await clientOf((await t.createMember()).token);
    expect(((await other.sendMessage(send('mine'))) as Task).status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);

    // A cancelled task ends: there is room for one more.
    const cancelled = await client.cancelTask({ id: opened[0]!.id, tenant: '', metadata: {} });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(((await client.sendMessage(send('room again'))) as Task).status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect((await refusal(client.sendMessage(send('full again')))).code).toBe(-32000);
  });

  it('admits at most the cap of calls sent side by side', async () => {
    const client = await clientOf((await t.createMember()).token);
    const outcomes = await Promise.allSettled(Array.from({ length: MAX * 3 }, (_, i) => client.sendMessage(send(`burst ${i}`))));
    const admitted = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThanOrEqual(MAX);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { envelopeCode?: number }).envelopeCode).toBe(-32000);
  });
});
