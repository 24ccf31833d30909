// MCP across a two-node cluster (real processes, Redis bus, shared PostgreSQL): a call on one node
// gets the reply of an agent connected to the other, an access token revoked on one node ends, at
// once, the call still waiting with it on the other, and a subscription to hub://agents on one node
// hears an agent connect to the other.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { callTool, connectMcp } from '../helpers/mcpClient.js';
import { hearUpdates } from '../helpers/mcpUpdates.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

describe('MCP in a cluster', () => {
  let c: TestCluster;
  const clients: Client[] = [];
  const sockets: WsClient[] = [];

  beforeAll(async () => {
    c = await startCluster({ nodes: 2 });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    await c?.stop();
  });

  it('hears the reply of an agent on the other node, and a revocation on the other node ends the waiting call', async () => {
    const [first, second] = [c.nodes[0]!, c.nodes[1]!];
    const member = await c.createMember();
    const agent = await c.createAgent();
    const agentWs = await connectWs(second.url, agent.api_token);
    sockets.push(agentWs);
    const minted = await second.api.post('/api/auth/access-tokens', { name: 'cluster client' }, { token: member.token });
    expect(minted.status).toBe(201);
    const client = await connectMcp(first.url, minted.body.token);
    clients.push(client);

    const asking = callTool<{ status: string; reply: { text: string } }>(client, 'send_message', {
      to: agent.username,
      text: 'ping across nodes',
      wait_seconds: 60,
    });
    const question = await agentWs.nextWhere((f) => f.type === 'CHAT' && f.payload === 'ping across nodes', 'the question');
    agentWs.send({ type: 'CHAT', target_id: member.id, payload: 'pong from the other node', local_id: 'pong' });
    expect(await asking).toMatchObject({ status: 'replied', reply: { text: 'pong from the other node' } });
    expect(question.sender_id).toBe(member.id);

    const waiting = client.callTool({ name: 'send_message', arguments: { to: agent.username, text: 'wait for me', wait_seconds: 60 } });
    waiting.catch(() => undefined);
    await agentWs.nextWhere((f) => f.type === 'CHAT' && f.payload === 'wait for me', 'the second message');
    const revokedAt = Date.now();
    expect((await second.api.delete(`/api/auth/access-tokens/${minted.body.id}`, { token: member.token })).status).toBe(200);
    await expect(waiting).rejects.toThrow();
    expect(Date.now() - revokedAt).toBeLessThan(10_000);
    await expect(client.callTool({ name: 'list_agents', arguments: {} })).rejects.toThrow();
  });

  it('tells a subscriber of hub://agents on one node when an agent connects to, and leaves, the other', async () => {
    const [first, second] = [c.nodes[0]!, c.nodes[1]!];
    const member = await c.createMember();
    const agent = await c.createAgent();
    const client = await connectMcp(first.url, member.token, 'modern');
    clients.push(client);
    const heard = hearUpdates(client);
    const sub = await client.listen({ resourceSubscriptions: ['hub://agents'] });
    const onlineHere = async () => {
      const read = await client.readResource({ uri: 'hub://agents' });
      const agents = JSON.parse((read.contents[0] as { text: string }).text) as Array<{ name: string; online: boolean }>;
      return agents.find((a) => a.name === agent.username)?.online;
    };
    try {
      const agentWs = await connectWs(second.url, agent.api_token);
      sockets.push(agentWs);
      await heard.until(async () => heard.uris.includes('hub://agents') && (await onlineHere()) === true, 'the agent online on the other node');
      const before = heard.uris.length;
      await agentWs.close();
      await heard.until(async () => heard.uris.length > before && (await onlineHere()) === false, 'the agent offline on the other node');
    } finally {
      await sub.close();
    }
  });
});
