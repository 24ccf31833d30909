// A remote A2A agent (an @a2a-js/sdk agent on loopback) in a cluster of two hub processes: its proxy
// runs on the leader only — one node logs it online, a chat through the other node reaches the agent
// once and the answer comes back there — and when the leader dies the other node takes the proxy over.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startA2aPeer, type A2aPeer } from '../helpers/a2aPeer.js';
import { startCluster, type ClusterNode, type TestCluster } from '../helpers/cluster.js';
import { uniqueName } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

const ONLINE = 'a2a: remote agent online (its card answers)';

describe.skipIf(!inject('pgUrl'))('A2A remote agents across nodes [postgres + redis]', () => {
  let c: TestCluster;
  let peer: A2aPeer;
  beforeAll(async () => {
    peer = await startA2aPeer();
    c = await startCluster({ nodes: 2, env: { A2A_AGENT_CHECK_INTERVAL: '200ms' } });
  }, 90_000);
  afterAll(async () => {
    await c?.stop();
    await peer?.stop();
  });

  /** The node whose log says it proxies the agent (from `since` on each node). */
  const proxying = (username: string, since: number[] = [0, 0]) =>
    Promise.any(
      c.nodes.map((n, i) =>
        n
          .waitForLog((l) => l.msg === ONLINE && l.agent === username, { description: `${username} proxied on ${n.id}`, timeoutMs: 30_000, since: since[i] })
          .then(() => n),
      ),
    );

  async function chat(node: ClusterNode, member: { username: string }, agentId: number, text: string): Promise<void> {
    const ws = await connectWs(node.url, await c.login(member.username, 'member-password', node));
    try {
      ws.send({ type: 'CHAT', target_id: agentId, payload: text });
      await ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agentId && f.payload === `echo: ${text}`, `the answer to "${text}"`, 15_000);
    } finally {
      await ws.close();
    }
  }

  it('runs the proxy on one node only, and on the other once that node dies', async () => {
    const [node1, node2] = c.nodes as [ClusterNode, ClusterNode];
    // Made through node 1 (the harness's), which may be the one that dies.
    const member = await c.createMember();
    const username = uniqueName('remote');
    const res = await node2.api.post('/api/users/agents', { username, runtime_kind: 'a2a', card_url: peer.cardUrl }, { token: c.adminToken });
    expect(res.status).toBe(201);
    const agentId = res.body.id as number;
    const runner = await proxying(username);
    const other = runner === node1 ? node2 : node1;

    // A chat through the node that does not proxy it reaches the agent once.
    await chat(other, member, agentId, 'through the other node');
    expect(peer.received.filter((m) => m.text === 'through the other node')).toHaveLength(1);
    expect(other.logs.some((l) => l.msg === ONLINE && l.agent === username)).toBe(false);

    const since = c.nodes.map((n) => n.logs.length);
    await runner.kill();
    const successor = await proxying(username, since);
    expect(successor).toBe(other);
    await chat(other, member, agentId, 'after the failover');
    expect(peer.received.filter((m) => m.text === 'after the failover')).toHaveLength(1);
  }, 120_000);
});
