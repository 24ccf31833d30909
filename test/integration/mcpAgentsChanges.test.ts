// Change notifications of the agent list (hub://agents) with the official MCP SDK's client as the
// peer, on both stores: a person subscribed on the 2026-07-28 revision hears
// notifications/resources/updated when an agent connects, reports and disconnects, any person may
// (everyone may list agents), and a burst of agents connecting is coalesced to about one
// notification per second instead of one per agent.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectMcp } from '../helpers/mcpClient.js';
import { hearUpdates } from '../helpers/mcpUpdates.js';
import { wsClientPool } from '../helpers/wsClient.js';

const AGENTS = 'hub://agents';

interface ListedAgent {
  name: string;
  online: boolean;
  last_report: string | null;
}

describeEachDriver('MCP hub://agents change notifications', (driver) => {
  let t: TestHub;
  const sockets = wsClientPool(() => t.url);
  const clients: Client[] = [];
  const closers: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    await sockets.closeAll();
  });
  afterAll(() => t?.stop());

  const mcp = async (token: string, era: 'legacy' | 'modern' = 'modern') => {
    const client = await connectMcp(t.url, token, era);
    clients.push(client);
    return client;
  };
  const agentsOf = async (client: Client): Promise<ListedAgent[]> => {
    const read = await client.readResource({ uri: AGENTS });
    return JSON.parse((read.contents[0] as { text: string }).text) as ListedAgent[];
  };
  const find = async (client: Client, name: string) => (await agentsOf(client)).find((a) => a.name === name);
  /** The agent shows online in the list (its connection is stored). */
  const untilOnline = async (client: Client, name: string) => {
    const heard = hearUpdates(client);
    const sub = await client.listen({ resourceSubscriptions: [AGENTS] });
    try {
      await heard.until(async () => (await find(client, name))?.online === true, `${name} online`);
    } finally {
      await sub.close();
    }
  };

  it('tells a subscribed member when an agent connects, reports and disconnects', async () => {
    const member = await t.createMember();
    const client = await mcp(member.token);
    expect(client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const heard = hearUpdates(client);
    const sub = await client.listen({ resourceSubscriptions: [AGENTS] });
    closers.push(() => sub.close());
    expect(sub.honoredFilter.resourceSubscriptions).toEqual([AGENTS]);

    const agent = await t.createAgent();
    const ws = await sockets.connect(agent.api_token);
    await heard.until(async () => heard.uris.length > 0 && (await find(client, agent.username))?.online === true, 'the agent online');
    expect(new Set(heard.uris)).toEqual(new Set([AGENTS]));

    const before = heard.uris.length;
    ws.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'cache warmed' }, local_id: 'report' });
    await heard.until(async () => heard.uris.length > before && (await find(client, agent.username))?.last_report === 'cache warmed', "the agent's report");

    const beforeClose = heard.uris.length;
    await ws.close();
    await heard.until(async () => heard.uris.length > beforeClose && (await find(client, agent.username))?.online === false, 'the agent offline');
  });

  it('coalesces a burst: 40 presence changes in a row reach a subscriber as about one notification per second', async () => {
    const admin = await mcp(t.adminToken);
    const agent = await t.createAgent();
    const ws = await sockets.connect(agent.api_token);
    await untilOnline(admin, agent.username);
    const heard = hearUpdates(admin);
    const sub = await admin.listen({ resourceSubscriptions: [AGENTS] });
    closers.push(() => sub.close());
    const startedAt = Date.now();
    // Each report is acknowledged before the next is sent: each is its own stored batch and presence change.
    for (let i = 1; i <= 40; i++) {
      ws.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `step ${i}` }, local_id: `step-${i}` });
      await ws.nextWhere((f) => f.type === 'ACK' && f.local_id === `step-${i}`, `the ACK of step ${i}`);
    }
    await heard.until(async () => heard.uris.length > 0 && (await find(admin, agent.username))?.last_report === 'step 40', 'the last step');
    const elapsedSeconds = (Date.now() - startedAt) / 1000;
    // One at once, then at most one per 1 s window: never one per change.
    expect(heard.uris.length).toBeLessThanOrEqual(Math.ceil(elapsedSeconds) + 1);
    expect(heard.uris.length).toBeLessThan(40);
  });

  it('offers no subscriptions on the 2025 revisions, and a subscription to a thread alone hears nothing of agents', async () => {
    const member = await t.createMember();
    const legacy = await mcp(member.token, 'legacy');
    expect(legacy.getServerCapabilities()?.resources?.subscribe).toBeFalsy();

    const modern = await mcp(member.token);
    const heard = hearUpdates(modern);
    const sub = await modern.listen({ resourceSubscriptions: ['hub://threads/999999/messages'] });
    closers.push(() => sub.close());
    // A second person subscribed to the agent list: their notification marks the change as delivered.
    const other = await t.createMember();
    const watcher = await mcp(other.token);
    const watched = hearUpdates(watcher);
    const watcherSub = await watcher.listen({ resourceSubscriptions: [AGENTS] });
    closers.push(() => watcherSub.close());
    const agent = await t.createAgent();
    await sockets.connect(agent.api_token);
    await watched.until(() => watched.uris.includes(AGENTS), "the watcher's notification");
    expect(heard.uris).toEqual([]);
  });
});
