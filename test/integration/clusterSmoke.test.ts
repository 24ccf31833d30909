import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { connectWs } from '../helpers/wsClient.js';

describe('cluster smoke', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await startCluster({ nodes: 2, env: { CLUSTER_NODE_TTL: '3s' } });
  }, 60_000);
  afterAll(() => c?.stop());

  it('delivers a chat from an agent on node 1 to a human on node 2', async () => {
    const agent = await c.createAgent();
    const member = await c.createMember();
    const [n1, n2] = c.nodes;
    const human = await connectWs(n2!.url, member.token);
    const a = await connectWs(n1!.url, agent.api_token);
    a.send({ type: 'CHAT', payload: 'hello across', target_id: member.id, local_id: 'x1' });
    const ack = await a.next('ACK');
    const got = await human.nextWhere((f) => f.payload === 'hello across', 'the chat');
    expect(got.id).toBe(ack.id);
    const agents = await n2!.api.get('/api/users/agents', { token: c.adminToken });
    console.log(JSON.stringify(agents.body).slice(0, 300));
    const actors = await n2!.api.get('/api/admin/actors', { token: c.adminToken });
    console.log(JSON.stringify((actors.body as Record<string, unknown>).node));
  }, 30_000);
});
