// A2A push notifications against a real hub with the official SDK's client: the config methods,
// webhook calls in order with the caller's token, a failed call tried again, a webhook that never
// answers holding up nothing, and the SSRF guard refusing a loopback webhook where private
// addresses are not allowed (as in production). The webhook is a real HTTP server on loopback. The
// webhook's credentials are stored sealed and never answered back; rows stored in plain text by an
// older hub are still read, and sealed at the next start.
import { randomUUID } from 'node:crypto';
import { Message, TaskState, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, followTask } from '../helpers/a2aClient.js';
import { describeEachDriver } from '../helpers/db.js';
import { startFakeWebhook, type FakeWebhook } from '../helpers/fakeWebhook.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const send = (text: string, returnImmediately: boolean) => ({
  message: Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] }),
  configuration: { acceptedOutputModes: ['text/plain'], taskPushNotificationConfig: undefined, returnImmediately },
  metadata: {},
  tenant: '',
});
const pushConfig = (taskId: string, url: string) => ({ tenant: '', id: '', taskId, url, token: 'webhook-secret-1', authentication: undefined });
const stateOf = (body: any): string | undefined => body?.statusUpdate?.status?.state ?? body?.task?.status?.state;

describeEachDriver('A2A push notifications', (driver) => {
  let t: TestHub;
  let member: { token: string };
  let agent: WsClient;
  let client: Client;
  let agentUrl: string;
  let agentUser: { username: string; api_token: string };
  let webhook: FakeWebhook;
  beforeAll(async () => {
    t = await startTestHub(driver, { A2A_ALLOW_PRIVATE_NETWORK: 'true' });
    member = await t.createMember();
    agentUser = await t.createAgent();
    agent = await connectWs(t.url, agentUser.api_token);
    agentUrl = `${t.url}/a2a/agents/${agentUser.username}/`;
    client = await a2aClient(agentUrl, member.token);
  });
  afterEach(() => webhook?.close());
  afterAll(async () => {
    await agent.close();
    await t.stop();
  });

  async function taskWaitingForAnswer(text: string): Promise<Task> {
    const task = (await client.sendMessage(send(text, true))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_SUBMITTED);
    return task;
  }
  const answerNext = async (text: string, reply: string) => {
    const chat = await agent.nextWhere((f) => f.type === 'CHAT' && f.payload === text, text);
    agent.send({ type: 'CHAT', payload: reply, target_id: chat.sender_id, conversation_id: chat.conversation_id });
  };

  it('registers, reads, lists and deletes a webhook, and POSTs the task events to it with its token, a failed call tried again', async () => {
    webhook = await startFakeWebhook();
    webhook.answerWith(503);
    const task = await taskWaitingForAnswer('push me');
    const created = await client.createTaskPushNotificationConfig(pushConfig(task.id, webhook.url));
    expect(created.id).not.toBe('');
    expect(created.taskId).toBe(task.id);
    expect((await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })).url).toBe(webhook.url);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).configs.map((c) => c.id)).toEqual([
      created.id,
    ]);

    await answerNext('push me', 'pushed');
    const completed = await webhook.waitFor((c) => stateOf(c.body) === 'TASK_STATE_COMPLETED', 'the COMPLETED event');
    expect(completed.headers['x-a2a-notification-token']).toBe('webhook-secret-1');
    expect(completed.headers['content-type']).toMatch(/json/);
    // The first call was answered 503 and made again with the same body; the events came in order.
    expect(webhook.calls.length).toBeGreaterThanOrEqual(3);
    expect(webhook.calls[1]!.body).toEqual(webhook.calls[0]!.body);
    const states = webhook.calls
      .slice(1)
      .map((c) => stateOf(c.body))
      .filter(Boolean);
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(t.logs.some((l) => l['msg'] === 'A2A push notification failed; trying again')).toBe(true);
    expect(JSON.stringify(t.logs)).not.toContain('webhook-secret-1');

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).configs).toEqual([]);
  });

  it('completes a task at once while its webhook never answers', async () => {
    webhook = await startFakeWebhook();
    webhook.hang();
    const task = await taskWaitingForAnswer('slow hook');
    await client.createTaskPushNotificationConfig(pushConfig(task.id, webhook.url));
    const { events } = await followTask(client, task.id);
    await answerNext('slow hook', 'done anyway');
    // Well within the webhook call's 5 s deadline: delivery did not wait for it.
    const last = (await events).at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await webhook.waitFor(() => true, 'a call to the hanging webhook');
  });

  it("stores a webhook's credentials sealed, answers its config without them, and still calls it with them", async () => {
    webhook = await startFakeWebhook();
    const task = await taskWaitingForAnswer('sealed hook');
    const config = { ...pushConfig(task.id, webhook.url), authentication: { scheme: 'Bearer', credentials: 'webhook-cred-2' } };
    const created = await client.createTaskPushNotificationConfig(config);
    const row = await t.hub.store.db.selectFrom('a2a_push_configs').select('config').where('task_id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.config).toMatch(/^v1\./);
    expect(row.config).not.toContain('webhook-secret-1');
    expect(row.config).not.toContain('webhook-cred-2');
    expect(row.config).not.toContain(webhook.url);
    // The answers carry the webhook and its scheme, never its credentials.
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id });
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' });
    for (const answer of [created, got, listed.configs[0]!]) {
      expect(answer).toMatchObject({ url: webhook.url, token: '', authentication: { scheme: 'Bearer', credentials: '' } });
    }

    await answerNext('sealed hook', 'sealed and sent');
    const completed = await webhook.waitFor((c) => stateOf(c.body) === 'TASK_STATE_COMPLETED', 'the COMPLETED event');
    expect(completed.headers['authorization']).toBe('Bearer webhook-cred-2');
    expect(JSON.stringify(t.logs)).not.toContain('webhook-cred-2');
  });

  it("does not show another caller's webhooks", async () => {
    webhook = await startFakeWebhook();
    const task = await taskWaitingForAnswer('mine only');
    await client.createTaskPushNotificationConfig(pushConfig(task.id, webhook.url));
    const other = await t.createMember();
    const stranger = await a2aClient(agentUrl, other.token);
    await expect(stranger.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 10, pageToken: '' })).rejects.toThrow(/not found/i);
    await answerNext('mine only', 'ok');
  });

  it('calls a webhook stored in plain text by an older hub with its token, and seals it at the next start', async () => {
    webhook = await startFakeWebhook();
    const task = await taskWaitingForAnswer('legacy hook');
    const created = await client.createTaskPushNotificationConfig(pushConfig(task.id, webhook.url));
    // As a hub before sealing wrote it: the config's JSON.
    const legacy = JSON.stringify({ taskId: task.id, id: created.id, url: webhook.url, token: 'legacy-token-3' });
    await t.hub.store.db.updateTable('a2a_push_configs').set({ config: legacy }).where('task_id', '=', task.id).execute();
    await answerNext('legacy hook', 'still called');
    const completed = await webhook.waitFor((c) => stateOf(c.body) === 'TASK_STATE_COMPLETED', 'the COMPLETED event');
    expect(completed.headers['x-a2a-notification-token']).toBe('legacy-token-3');

    await agent.close();
    t = await t.restart();
    const row = await t.hub.store.db.selectFrom('a2a_push_configs').select('config').where('task_id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.config).toMatch(/^v1\./);
    expect(row.config).not.toContain('legacy-token-3');
    expect(t.logs.find((l) => l['msg'] === 'sealed the credentials of A2A webhook configs stored in plain text before')).toMatchObject({ configs: 1 });
    // Read back through the restarted hub (a new port): the same webhook, without its token.
    const again = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, member.token);
    expect(await again.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: created.id })).toMatchObject({ url: webhook.url, token: '' });
    agent = await connectWs(t.url, agentUser.api_token);
  });
});

describe('A2A push notifications: the SSRF guard', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('refuses a webhook on a loopback address where private addresses are not allowed, naming the address and the setting', async () => {
    t = await startTestHub('sqlite', { A2A_ALLOW_PRIVATE_NETWORK: 'false' });
    const member = await t.createMember();
    const agentUser = await t.createAgent();
    const agent = await connectWs(t.url, agentUser.api_token);
    const client = await a2aClient(`${t.url}/a2a/agents/${agentUser.username}/`, member.token);
    const task = (await client.sendMessage(send('guarded', true))) as Task;
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'http://169.254.169.254/latest/meta-data', 'http://localhost:9/x']) {
      await expect(client.createTaskPushNotificationConfig(pushConfig(task.id, url))).rejects.toThrow(
        /private or internal address; set A2A_ALLOW_PRIVATE_NETWORK=true/,
      );
    }
    await expect(client.createTaskPushNotificationConfig(pushConfig(task.id, 'ftp://example.com/x'))).rejects.toThrow(/http or https/);
    await agent.close();
  });
});
