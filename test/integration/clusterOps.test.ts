// A cluster seen from outside: /metrics and actor inspection name the node, the bus, leadership and
// the other live nodes, and how many agents each node sees ONLINE; while Redis is away each node says so in /api/ready (degraded, still 200),
// logs it once and counts it, and comes back on its own when Redis does. Failed logins share one
// budget across the nodes, reserved before the hash.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, startRedis, type ClusterNode, type PrivateRedis, type TestCluster } from '../helpers/cluster.js';
import { connectWs, type Frame, type WsClient } from '../helpers/wsClient.js';

const metricValue = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe.skipIf(!inject('pgUrl'))('a cluster seen from outside [postgres + redis]', () => {
  let redis: PrivateRedis;
  let c: TestCluster;
  const sockets: WsClient[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    c = await startCluster({ nodes: 2, env: { REDIS_URL: redis.url, CLUSTER_NODE_TTL: '3s', LOGIN_MAX_FAILURES: '3' } });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    await c?.stop();
    await redis?.stop();
  }, 60_000);

  const metricsOf = async (node: ClusterNode) => (await node.api.get('/metrics')).body as string;

  it('shows the node id, the bus, the leader and the live nodes in /metrics and inspection', async () => {
    const [n1, n2] = c.nodes as [ClusterNode, ClusterNode];
    const agent = await c.createAgent();
    const member = await c.createMember();
    const human = await connectWs(n2.url, member.token);
    const a = await connectWs(n1.url, agent.api_token);
    sockets.push(human, a);
    a.send({ type: 'CHAT', payload: 'counted', target_id: member.id });
    await human.nextWhere((f) => f.payload === 'counted', 'the chat');

    // Each node reads the list of live nodes once per beat (a fifth of CLUSTER_NODE_TTL): the second
    // node is seen by the first within a beat of its start.
    await expect
      .poll(async () => Promise.all([n1, n2].map(async (n) => metricValue(await metricsOf(n), 'hub_cluster_nodes'))), { timeout: 5000 })
      .toEqual([2, 2]);
    const [m1, m2] = [await metricsOf(n1), await metricsOf(n2)];
    expect(m1).toContain('hub_node_info{node_id="n1"} 1');
    expect(m2).toContain('hub_node_info{node_id="n2"} 1');
    expect(metricValue(m1, 'hub_cluster_bus_published_total{kind="batch"}')).toBeGreaterThan(0);
    expect(metricValue(m2, 'hub_cluster_bus_received_total{kind="batch"}')).toBeGreaterThan(0);
    expect(metricValue(m2, 'hub_cluster_bus_lag_seconds_count')).toBeGreaterThan(0);
    expect([metricValue(m1, 'hub_cluster_nodes'), metricValue(m2, 'hub_cluster_nodes')]).toEqual([2, 2]);
    expect([metricValue(m1, 'hub_cluster_redis_up'), metricValue(m2, 'hub_cluster_redis_up')]).toEqual([1, 1]);
    expect(metricValue(m1, 'hub_cluster_leader')! + metricValue(m2, 'hub_cluster_leader')!).toBe(1);

    const sections = await Promise.all(c.nodes.map(async (n) => (await n.api.get('/api/admin/actors', { token: c.adminToken })).body.node));
    expect(sections.map((s) => s.id)).toEqual(['n1', 'n2']);
    expect(sections.map((s) => s.peers)).toEqual([['n2'], ['n1']]);
    expect(sections.filter((s) => s.leader)).toHaveLength(1);
    expect(sections.every((s) => s.cluster === true && s.redis.status === 'up')).toBe(true);
    // Members do not see it.
    expect((await n1.api.get('/api/admin/actors', { token: member.token })).status).toBe(403);
  });

  it('says in inspection how many agents each node sees ONLINE, the same on every node once presence has passed both', async () => {
    const online = () =>
      Promise.all(c.nodes.map(async (n) => (await n.api.get('/api/admin/actors', { token: c.adminToken })).body.node.online_agents as number));
    const member = await c.createMember();
    const watchers = await Promise.all(c.nodes.map((n) => connectWs(n.url, member.token)));
    sockets.push(...watchers);
    const before = await online();
    expect(before[0]).toBe(before[1]);
    const agent = await c.createAgent();
    const isPresence = (up: boolean) => (f: Frame) => f.type === 'PRESENCE' && f.payload?.user_id === agent.id && f.payload?.online === up;
    const socket = await connectWs(c.nodes[0]!.url, agent.api_token);
    // A node notes a PRESENCE before it hands the frame to its sockets: once each watcher has it, its node counts it.
    await Promise.all(watchers.map((w) => w.nextWhere(isPresence(true), 'the agent ONLINE')));
    expect(await online()).toEqual(before.map((n) => n + 1));
    await socket.close();
    await Promise.all(watchers.map((w) => w.nextWhere(isPresence(false), 'the agent OFFLINE')));
    expect(await online()).toEqual(before);
  });

  it('counts failed logins across nodes: guesses on two nodes share one budget', async () => {
    const [n1, n2] = c.nodes as [ClusterNode, ClusterNode];
    const member = await c.createMember();
    const guess = (node: ClusterNode) => node.api.post('/api/auth/login', { username: member.username, password: 'not-the-password' });
    // LOGIN_MAX_FAILURES is 3 here: the budget is spent by guesses on either node.
    expect([(await guess(n1)).status, (await guess(n2)).status, (await guess(n1)).status]).toEqual([401, 401, 401]);
    expect((await guess(n2)).status).toBe(429);
    expect((await guess(n1)).status).toBe(429);
  });

  it('counts 100 guesses sent at once through two nodes before hashing any: the shared budget, no more', async () => {
    const member = await c.createMember();
    const guess = (node: ClusterNode) => node.api.post('/api/auth/login', { username: member.username, password: 'not-the-password' });
    const burst = (await Promise.all(Array.from({ length: 100 }, (_, i) => guess(c.nodes[i % 2]!)))).map((r) => r.status);
    expect(burst.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    const wrongInBurst = burst.filter((status) => status === 401).length;
    expect(wrongInBurst).toBeLessThanOrEqual(3);
    // What is left of the budget, one guess at a time on either node: with the burst's, exactly 3.
    let wrongAfter = 0;
    for (let i = 0; (await guess(c.nodes[i % 2]!)).status === 401; i++) wrongAfter += 1;
    expect(wrongInBurst + wrongAfter).toBe(3);
    // Room for a hub that hashes every guess (the fault), so that it fails on the count, not the time.
  }, 120_000);

  it('answers degraded while Redis is away, logs the outage once, counts it, and recovers on its own', async () => {
    const [n1, n2] = c.nodes as [ClusterNode, ClusterNode];
    const since = n1.logs.length;
    expect((await n1.api.get('/api/ready')).body).toEqual({ status: 'ready' });

    await redis.stop('SIGKILL');
    await n1.waitForLog((l) => String(l['msg']).startsWith('redis is unreachable'), { since, description: 'the outage logged' });
    const ready = await n1.api.get('/api/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'degraded', reason: expect.stringContaining('redis unreachable') });
    // Logins still work (the failed-login budget falls back to this node's memory).
    expect((await n2.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);

    await redis.restart();
    await n1.waitForLog((l) => String(l['msg']).startsWith('redis is reachable again'), { since, description: 'the recovery logged' });
    expect((await n1.api.get('/api/ready')).body).toEqual({ status: 'ready' });
    const outageLines = n1.logs.slice(since).filter((l) => String(l['msg']).startsWith('redis is unreachable'));
    expect(outageLines).toHaveLength(1);
    expect(metricValue(await metricsOf(n1), 'hub_cluster_redis_outages_total')).toBe(1);
  }, 60_000);
});
