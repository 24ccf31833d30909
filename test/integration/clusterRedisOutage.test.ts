// A cluster of three nodes on a private Redis (issue 28, items 4 and 7): while Redis is stopped,
// agents chatting across nodes keep their pace (every node reads what the others commit from the
// store on every tick; its own senders' ACKs never wait for the bus), every acknowledged message
// reaches its reader once and in order, and nothing is late once Redis is back. And what comes over
// Redis must be sealed by a node: a forged batch or control message, or a replayed one, is dropped.
// A revocation decided on one node while Redis is away still closes the sockets on the others (the
// bus journal in the store), and the token is refused there at once. Presence decided on one node
// while Redis is away reaches the other nodes' dashboards once it is back (read from the store).
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, startRedis, type ClusterNode, type PrivateRedis, type TestCluster } from '../helpers/cluster.js';
import { refusedUpgrade, wsClientPool, type Frame } from '../helpers/wsClient.js';

/** Each agent sends one CHAT every this many ms (three agents: 150 messages a second). */
const SEND_EVERY_MS = 20;

const metric = (text: string, sample: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${sample} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
};

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};

describe.skipIf(!inject('pgUrl'))('a cluster while Redis is away, and forged messages on Redis [postgres]', () => {
  let redis: PrivateRedis;
  let cluster: TestCluster;
  const sockets = wsClientPool();
  const connect = (node: ClusterNode, token: string) => sockets.connectTo(node.url, token);
  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startCluster({ nodes: 3, env: { REDIS_URL: redis.url, CLUSTER_NODE_TTL: '3s' } });
  }, 120_000);
  afterEach(() => sockets.closeAll());
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  }, 60_000);

  it('drops a forged batch and a forged control message published straight to Redis, counts them and logs them once', async () => {
    const [n1, n2] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const member = await cluster.createMember();
    const courier = await cluster.createAgent();
    const tab = await connect(n2, member.token);
    const sender = await connect(n1, courier.api_token);
    const since = n2.logs.length;

    const forger = new Redis(redis.url);
    try {
      const frame = {
        type: 'CHAT',
        id: 1_000_000,
        sender_id: 1,
        sender_name: 'Butler',
        sender_role: 'BUTLER',
        target_id: member.id,
        payload: 'forged: send me your password',
      };
      const audience = { target: member.id, echo: false, exceptSender: false, monitor: false };
      const batch = {
        kind: 'batch',
        node: 'n1',
        prev: 0,
        last: 0,
        at: Date.now(),
        deliveries: [{ type: 'CHAT', text: JSON.stringify(frame), audience, senderId: 1 }],
      };
      await forger.publish(`${cluster.name}:batches`, JSON.stringify(batch));
      await forger.publish(`${cluster.name}:control`, JSON.stringify({ kind: 'close-user', node: 'n1', userId: member.id, code: 4001, reason: 'forged' }));
      // The same with a seal made up without the key.
      await forger.publish(`${cluster.name}:batches`, `v1 n1/00000000 1 ${Date.now()} ${'A'.repeat(43)} ${JSON.stringify(batch)}`);
    } finally {
      forger.disconnect();
    }

    // Published after the forgeries on the same Redis: once it is here, they were handled (or not).
    sender.send({ type: 'CHAT', payload: 'marker', target_id: member.id });
    await tab.nextWhere((f) => f.type === 'CHAT' && f.payload === 'marker', 'the marker');
    expect(tab.received.filter((f) => f.type === 'CHAT').map((f) => f.payload)).toEqual(['marker']);
    expect(tab.socket.readyState).toBe(tab.socket.OPEN);

    const metrics = (await n2.api.get('/metrics')).body as string;
    expect(metric(metrics, 'hub_cluster_bus_refused_total{reason="unsealed"}')).toBe(2);
    expect(metric(metrics, 'hub_cluster_bus_refused_total{reason="forged"}')).toBe(1);
    const lines = n2.logs.slice(since).filter((l) => String(l['msg']).startsWith('dropped messages on the cluster bus that failed their seal'));
    expect(lines).toHaveLength(1);
  }, 30_000);

  it('drops a sealed message replayed on Redis: the reader gets the chat once', async () => {
    const [n1, n2] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const member = await cluster.createMember();
    const courier = await cluster.createAgent();
    const tab = await connect(n2, member.token);
    const sender = await connect(n1, courier.api_token);

    const listener = new Redis(redis.url);
    const replayer = new Redis(redis.url);
    try {
      const captured = new Promise<string>((resolve) =>
        listener.on('message', (_channel: string, text: string) => text.includes('replay me') && resolve(text)),
      );
      await listener.subscribe(`${cluster.name}:batches`);
      sender.send({ type: 'CHAT', payload: 'replay me', target_id: member.id });
      await tab.nextWhere((f) => f.type === 'CHAT' && f.payload === 'replay me', 'the chat');
      await replayer.publish(`${cluster.name}:batches`, await captured);
    } finally {
      listener.disconnect();
      replayer.disconnect();
    }
    sender.send({ type: 'CHAT', payload: 'marker', target_id: member.id });
    await tab.nextWhere((f) => f.type === 'CHAT' && f.payload === 'marker', 'the marker');
    expect(tab.received.filter((f) => f.type === 'CHAT').map((f) => f.payload)).toEqual(['replay me', 'marker']);
    expect(metric((await n2.api.get('/metrics')).body as string, 'hub_cluster_bus_refused_total{reason="replayed"}')).toBe(1);
  }, 30_000);

  it('keeps delivering across nodes at pace while Redis is stopped: every acknowledged message once, in order, ACK and read p99 within 1.5 s and 2 s', async () => {
    const nodes = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    // Agent i on node i writes to a member whose tab is on the next node: every message crosses nodes.
    const pairs = await Promise.all(
      nodes.map(async (node, i) => {
        const agent = await cluster.createAgent();
        const member = await cluster.createMember();
        const tab = await connect(nodes[(i + 1) % 3]!, member.token);
        const socket = await connect(node, agent.api_token);
        return { node, agent, member, tab, socket, sentAt: new Map<string, number>(), ackedAt: new Map<string, number>(), readAt: new Map<string, number>() };
      }),
    );
    for (const p of pairs) {
      p.socket.socket.on('message', (data) => {
        const f = JSON.parse(String(data)) as Frame;
        if (f.type === 'ACK' && f.local_id) p.ackedAt.set(f.local_id, performance.now());
      });
      p.tab.socket.on('message', (data) => {
        const f = JSON.parse(String(data)) as Frame;
        if (f.type === 'CHAT' && typeof f.payload === 'string') p.readAt.set(f.payload, performance.now());
      });
    }
    let seq = 0;
    /** Sends `count` CHATs from every agent, one each SEND_EVERY_MS; resolves when the last is sent. */
    const send = (count: number) =>
      new Promise<void>((resolve) => {
        let left = count;
        const timer = setInterval(() => {
          const n = seq++;
          for (const p of pairs) {
            const text = `m${n}`;
            p.sentAt.set(text, performance.now());
            p.socket.send({ type: 'CHAT', payload: text, target_id: p.member.id, local_id: text });
          }
          if (--left === 0) {
            clearInterval(timer);
            resolve();
          }
        }, SEND_EVERY_MS);
      });

    await send(50);
    const since = nodes.map((n) => n.logs.length);
    await redis.stop('SIGKILL');
    await Promise.all(
      nodes.map((n, i) => n.waitForLog((l) => String(l['msg']).startsWith('redis is unreachable'), { since: since[i], description: 'the outage' })),
    );
    const outageFrom = seq;
    await send(200);
    const outageTo = seq;
    await redis.restart();
    await Promise.all(
      nodes.map((n, i) => n.waitForLog((l) => String(l['msg']).startsWith('redis is reachable again'), { since: since[i], description: 'Redis back' })),
    );
    await send(50);
    const last = `m${seq - 1}`;
    for (const p of pairs) await p.tab.nextWhere((f) => f.type === 'CHAT' && f.payload === last, `the last chat (${p.node.id})`, 20_000);
    // A reader on another node may see the last chat before its sender's node has handed over its own
    // batch (which carries the ACKs): wait for the last ACK too. One sender's ACKs come in commit order.
    for (const p of pairs) await p.socket.nextWhere((f) => f.type === 'ACK' && f.local_id === last, `the last ACK (${p.node.id})`, 20_000);

    for (const p of pairs) {
      const sent = [...p.sentAt.keys()];
      // Everything sent was acknowledged, and read once, in the order sent.
      expect(p.socket.received.filter((f) => f.type === 'ERROR')).toEqual([]);
      expect([...p.ackedAt.keys()].sort()).toEqual([...sent].sort());
      expect(p.tab.received.filter((f) => f.type === 'CHAT').map((f) => f.payload)).toEqual(sent);
    }
    const during = (p: (typeof pairs)[number], at: Map<string, number>) =>
      Array.from({ length: outageTo - outageFrom }, (_, k) => at.get(`m${outageFrom + k}`)! - p.sentAt.get(`m${outageFrom + k}`)!);
    const acks = pairs.flatMap((p) => during(p, p.ackedAt));
    const reads = pairs.flatMap((p) => during(p, p.readAt));
    // Bounds with room for a shared CI machine; before the store reads per tick these were tens of seconds.
    expect(percentile(acks, 99), 'ACK p99 ms while Redis was away').toBeLessThan(1500);
    expect(percentile(reads, 99), 'send → read p99 ms while Redis was away').toBeLessThan(2000);
    // Nothing was left behind: no node is behind the commits now.
    for (const node of nodes) expect((await node.api.get('/api/ready')).body).toEqual({ status: 'ready' });
  }, 120_000);

  it('hands a dashboard on another node the presence changes made while Redis was stopped, within seconds of its return', async () => {
    const [n1, n2] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const leaving = await cluster.createAgent();
    const coming = await cluster.createAgent();
    const member = await cluster.createMember();
    const presence = (id: number, online: boolean) => (f: Frame) =>
      f.type === 'PRESENCE' && f.sender_id === id && (f.payload as { online?: boolean }).online === online;
    // A tab on node 1 hears node 1's own decisions (stored by then); the tab on node 2 is the one under test.
    const near = await connect(n1, member.token);
    const far = await connect(n2, member.token);
    const leavingSocket = await connect(n1, leaving.api_token);
    await far.nextWhere(presence(leaving.id, true), 'the leaving agent ONLINE on node 2');
    const since = cluster.nodes.map((n) => n.logs.length);
    await redis.stop('SIGKILL');
    try {
      await Promise.all(
        cluster.nodes.map((n, i) => n.waitForLog((l) => String(l['msg']).startsWith('redis is unreachable'), { since: since[i], description: 'the outage' })),
      );
      await leavingSocket.close();
      await near.nextWhere(presence(leaving.id, false), 'the leaving agent OFFLINE on node 1');
      await connect(n1, coming.api_token);
      await near.nextWhere(presence(coming.id, true), 'the coming agent ONLINE on node 1');
    } finally {
      await redis.restart();
    }
    await Promise.all(
      cluster.nodes.map((n, i) => n.waitForLog((l) => String(l['msg']).startsWith('redis is reachable again'), { since: since[i], description: 'Redis back' })),
    );
    // Before the back-fill the OFFLINE never came: node 1 re-asserts only the agents it holds.
    const gone = await far.nextWhere(presence(leaving.id, false), 'the leaving agent OFFLINE on node 2', 8000);
    expect(gone).toMatchObject({ payload: { status: 'OFFLINE', last_report: 'websocket_disconnected' } });
    await far.nextWhere(presence(coming.id, true), 'the coming agent ONLINE on node 2', 8000);
    const agents = await n2.api.get<Array<{ id: number; status: string; online: boolean }>>('/api/users/agents', { token: member.token });
    expect(agents.status).toBe(200);
    expect(agents.body.find((a) => a.id === leaving.id)).toMatchObject({ status: 'OFFLINE' });
    expect(agents.body.find((a) => a.id === coming.id)).toMatchObject({ status: 'ONLINE' });
    // The dashboard's last word on each agent is the store's.
    const last = (id: number) => far.received.filter((f) => f.type === 'PRESENCE' && f.sender_id === id).at(-1)?.payload as { online?: boolean };
    expect(last(leaving.id).online).toBe(false);
    expect(last(coming.id).online).toBe(true);
  }, 60_000);

  it('closes a rotated agent and a demoted member on the other nodes while Redis is stopped, within 3 s', async () => {
    const [n1, n2, n3] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const agent = await cluster.createAgent();
    const member = await cluster.createMember({ role: 'ADMIN' });
    const agentSocket = await connect(n2, agent.api_token);
    const memberTab = await connect(n3, member.token);
    const since = cluster.nodes.map((n) => n.logs.length);
    await redis.stop('SIGKILL');
    try {
      await Promise.all(
        cluster.nodes.map((n, i) => n.waitForLog((l) => String(l['msg']).startsWith('redis is unreachable'), { since: since[i], description: 'the outage' })),
      );
      const rotatedAt = performance.now();
      const rotated = await n1.api.patch<{ api_token: string }>(`/api/users/agents/${agent.id}/token`, {}, { token: cluster.adminToken });
      expect(rotated.status).toBe(200);
      const demoted = await n1.api.patch(`/api/users/${member.id}`, { role: 'MEMBER' }, { token: cluster.adminToken });
      expect(demoted.status).toBe(200);
      // Before the journal these sockets stayed open for good: the close was said on Redis only.
      expect(await agentSocket.closed(3000)).toEqual({ code: 4001, reason: 'api_token rotated' });
      expect((await memberTab.closed(3000)).code).toBe(4005);
      expect(performance.now() - rotatedAt).toBeLessThan(3000);
      // The node that was told from the store refuses the old token and takes the new one.
      expect((await refusedUpgrade(n2.url, agent.api_token)).status).toBe(401);
      const again = await connect(n2, rotated.body.api_token);
      again.send({ type: 'CHAT', payload: 'back with a new token', target_id: member.id, local_id: 'new-token' });
      await again.nextWhere((f) => f.type === 'ACK' && f.local_id === 'new-token', 'the ACK on the new token');
    } finally {
      if (!redis.running) await redis.restart();
    }
  }, 60_000);
});
