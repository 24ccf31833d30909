// Several hub processes as one hub (issue 18, "Done when"): three nodes on one PostgreSQL database
// and one Redis, each its own process on its own port. Frames cross nodes by the routing rules of
// wire.md §5, exactly once per socket; presence spans nodes and survives (or reports) a node's
// kill -9; revocation closes sockets on other nodes; resume has no gap when commits finish out of
// id order; and a Redis restart in the middle of traffic loses nothing acknowledged.
// Butler's failover is tested with the lead's Butler work.
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { SHARED_REDIS_URL, startCluster, startRedis, type ClusterNode, type PrivateRedis, type TestCluster } from '../helpers/cluster.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';
import { wsClientPool, type Frame, type WsClient, type WsClientPool } from '../helpers/wsClient.js';

/** CLUSTER_NODE_TTL in these tests: a killed node's sockets stop counting within it. */
const NODE_TTL_MS = 3000;
/** How late one node's commands reach Redis in the slow-link tests (ms). */
const SLOW_REDIS_MS = 300;

const chatIds = (frames: Frame[]) => frames.filter((f) => f.type === 'CHAT').map((f) => f.id!);
const isPresenceOf = (userId: number, online?: boolean) => (f: Frame) =>
  f.type === 'PRESENCE' && f.payload.user_id === userId && (online === undefined || f.payload.online === online);

/** The agent's row in `GET /api/users/agents` as `node` answers it for the holder of `token`. */
async function listedAgent(node: ClusterNode, token: string, agentId: number) {
  const list = (await node.api.get('/api/users/agents', { token })).body as Array<{ id: number; status: string; online: boolean }>;
  return list.find((u) => u.id === agentId);
}

/** A new agent with a socket on `node`, and a new member's dashboard there that has seen it come ONLINE. */
async function watchedAgent(cluster: TestCluster, sockets: WsClientPool, node: ClusterNode) {
  const agent = await cluster.createAgent();
  const member = await cluster.createMember();
  const watcher = await sockets.connectTo(node.url, member.token);
  const socket = await sockets.connectTo(node.url, agent.api_token);
  await watcher.nextWhere(isPresenceOf(agent.id, true), `the agent online (${node.id})`);
  return { agent, member, watcher, socket };
}

describe.skipIf(!inject('pgUrl'))('a cluster of three nodes [postgres]', () => {
  let cluster: TestCluster;
  let n1: ClusterNode, n2: ClusterNode, n3: ClusterNode;
  const sockets = wsClientPool();
  const connect = (node: ClusterNode, token: string, query?: Record<string, string | number>) => sockets.connectTo(node.url, token, query);

  /**
   * Proves nothing else is on its way to `clients` (all sockets of user `to`): a marker chat sent
   * after, from `from` (a socket of the sender whose frames are being checked, since one sender's
   * frames keep their order across nodes), reaches each of them first. PRESENCE is ignored. The
   * sender should be an agent: a human sender would get its own echo.
   */
  const assertNothingMore = async (clients: WsClient[], marker: { from: WsClient; to: number }) => {
    const text = `marker-${Math.random()}`;
    marker.from.send({ type: 'CHAT', payload: text, target_id: marker.to });
    await Promise.all(clients.map((c) => c.nextWhere((f) => f.payload === text, 'the marker')));
    for (const c of clients) expect(c.pending().filter((f) => f.type !== 'PRESENCE')).toEqual([]);
  };
  /** An agent's socket that only sends markers. */
  const courier = async (node: ClusterNode) => connect(node, (await cluster.createAgent()).api_token);

  beforeAll(async () => {
    cluster = await startCluster({ nodes: 3, env: { CLUSTER_NODE_TTL: `${NODE_TTL_MS / 1000}s` } });
    [n1, n2, n3] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
  }, 120_000);
  afterEach(() => sockets.closeAll());
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('delivers targeted chat to the target’s tabs on other nodes, once per tab, with the ACK to the sender', async () => {
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const tab2 = await connect(n2, member.token);
    const tab3 = await connect(n3, member.token);
    const a = await connect(n1, agent.api_token);

    a.send({ type: 'CHAT', payload: 'to both tabs', target_id: member.id, local_id: 'a-1' });
    const [f2, f3, ack] = await Promise.all([tab2.next('CHAT'), tab3.next('CHAT'), a.next('ACK')]);
    expect(f2).toEqual(f3);
    expect(f2).toMatchObject({ type: 'CHAT', payload: 'to both tabs', sender_id: agent.id, sender_role: 'AGENT', target_id: member.id, local_id: 'a-1' });
    expect(f2.conversation_id).toEqual(expect.any(Number));
    expect(ack).toEqual({ type: 'ACK', local_id: 'a-1', id: f2.id, timestamp: f2.timestamp });

    // The human answers from node 2: the agent on node 1 gets it, both tabs get the echo.
    tab2.send({ type: 'CHAT', payload: 'reply', target_id: agent.id });
    const [atAgent, echo2, echo3] = await Promise.all([a.next('CHAT'), tab2.next('CHAT'), tab3.next('CHAT')]);
    expect(atAgent).toMatchObject({ payload: 'reply', sender_id: member.id, target_id: agent.id, conversation_id: f2.conversation_id });
    expect(echo2).toEqual(atAgent);
    expect(echo3).toEqual(atAgent);
    await assertNothingMore([tab2, tab3], { from: a, to: member.id });
    await assertNothingMore([a], { from: await courier(n3), to: agent.id });
  });

  it('keeps one sender’s order across nodes, each frame once per tab', async () => {
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const tabs = [await connect(n1, member.token), await connect(n2, member.token), await connect(n3, member.token)];
    const a = await connect(n2, agent.api_token);
    const count = 200;
    for (let i = 0; i < count; i += 1) a.send({ type: 'CHAT', payload: `seq ${i}`, target_id: member.id, local_id: `s-${i}` });
    const acks = [];
    for (let i = 0; i < count; i += 1) acks.push(await a.next('ACK'));
    const acked = acks.map((f) => f.id!);
    for (const tab of tabs) {
      const got = [];
      for (let i = 0; i < count; i += 1) got.push(await tab.next('CHAT', 10_000));
      expect(got.map((f) => f.payload)).toEqual(Array.from({ length: count }, (_, i) => `seq ${i}`));
      expect(chatIds(got)).toEqual(acked);
    }
    await assertNothingMore(tabs, { from: a, to: member.id });
  });

  it('broadcasts chat to every node but not back to a machine sender, and telemetry to humans only', async () => {
    const agent = await cluster.createAgent();
    const other = await cluster.createAgent();
    const member = await cluster.createMember();
    const a = await connect(n1, agent.api_token);
    const b = await connect(n2, other.api_token);
    const m = await connect(n3, member.token);
    const admin = await connect(n2, cluster.adminToken);

    a.send({ type: 'CHAT', payload: 'hello all' });
    const got = await Promise.all([b.next('CHAT'), m.next('CHAT'), admin.next('CHAT')]);
    for (const f of got) expect(f).toMatchObject({ payload: 'hello all', sender_id: agent.id, id: got[0]!.id });
    expect(got[0]).not.toHaveProperty('target_id');

    // A human's broadcast from node 3 reaches everyone, its own socket included (the echo).
    m.send({ type: 'CHAT', payload: 'from a human' });
    const back = await Promise.all([a.next('CHAT'), b.next('CHAT'), m.next('CHAT'), admin.next('CHAT')]);
    for (const f of back) expect(f).toMatchObject({ payload: 'from a human', sender_id: member.id, id: back[0]!.id });

    a.send({ type: 'SYSTEM_LOG', payload: { level: 'SUCCESS', content: 'deployed' } });
    const logs = await Promise.all([m.next('SYSTEM_LOG'), admin.next('SYSTEM_LOG')]);
    for (const f of logs) expect(f).toMatchObject({ sender_id: agent.id, payload: { level: 'SUCCESS', content: 'deployed' } });
    // The sender got none of its own broadcast chat, the other agent no telemetry; nobody got doubles.
    // (The markers come from the agent whose broadcast is checked, and from the human's node.)
    const c3 = await courier(n3);
    await assertNothingMore([a], { from: c3, to: agent.id });
    await assertNothingMore([b], { from: c3, to: other.id });
    await assertNothingMore([m], { from: a, to: member.id });
    await assertNothingMore([admin], { from: a, to: 1 });
  });

  it('copies Butler↔agent chat to admins on every node, to nobody else', async () => {
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const admin1 = await connect(n1, cluster.adminToken);
    const admin2 = await connect(n2, cluster.adminToken);
    const m = await connect(n2, member.token);
    const a = await connect(n3, agent.api_token);

    a.send({ type: 'CHAT', payload: 'for Butler', target_id: 2, local_id: 'mon-1' });
    const ack = await a.next('ACK');
    const copies = await Promise.all([admin1.next('BUTLER_AGENT_MESSAGE'), admin2.next('BUTLER_AGENT_MESSAGE')]);
    for (const copy of copies) {
      expect(copy).toMatchObject({
        type: 'BUTLER_AGENT_MESSAGE',
        payload: { agent_id: agent.id, type: 'CHAT', sender_id: agent.id, sender_role: 'AGENT', payload: 'for Butler', id: ack.id },
      });
    }
    expect(copies[0]).toEqual(copies[1]);
    await assertNothingMore([m], { from: a, to: member.id });
    expect(m.received.filter((f) => f.type === 'BUTLER_AGENT_MESSAGE')).toEqual([]);
  });

  it('counts an agent online while any node holds a socket of it, and agrees on every node', async () => {
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const watcher = await connect(n1, member.token);

    const s2 = await connect(n2, agent.api_token);
    expect(await watcher.nextWhere(isPresenceOf(agent.id, true), 'the agent online (a socket on node 2)')).toMatchObject({
      payload: { user_id: agent.id, username: agent.username, status: 'ONLINE', online: true },
    });
    for (const node of cluster.nodes) expect(await listedAgent(node, member.token, agent.id)).toMatchObject({ status: 'ONLINE', online: true });

    // A second socket on node 3, then both close, the first first: once a socket is open, closing
    // another one elsewhere does not report the agent gone.
    const s3 = await connect(n3, agent.api_token);
    await s2.close();
    await s3.close();
    const offline = await watcher.nextWhere(isPresenceOf(agent.id, false), 'the agent offline (its last socket closed)');
    expect(offline.payload).toMatchObject({ status: 'OFFLINE', online: false, last_report: 'websocket_disconnected' });
    // Exactly one OFFLINE, after the last socket: closing the first of two did not report the agent gone.
    const presence = watcher.received.filter(isPresenceOf(agent.id));
    expect(presence.filter((f) => f.payload.online === false)).toEqual([offline]);
    expect(presence.at(-1)).toBe(offline);
    for (const node of cluster.nodes) expect(await listedAgent(node, member.token, agent.id)).toMatchObject({ status: 'OFFLINE', online: false });
  });

  it('closes an agent’s socket on node 3 within a second of its token being rotated on node 1', async () => {
    const agent = await cluster.createAgent();
    const s3 = await connect(n3, agent.api_token);
    const s2 = await connect(n2, agent.api_token);
    const closed3 = s3.closed(5000);
    const closed2 = s2.closed(5000);
    const rotated = await n1.api.patch(`/api/users/agents/${agent.id}/token`, {}, { token: cluster.adminToken });
    expect(rotated.status).toBe(200);
    const answeredAt = Date.now();
    expect(await closed3).toEqual({ code: 4001, reason: 'api_token rotated' });
    expect(Date.now() - answeredAt).toBeLessThan(1000);
    expect(await closed2).toEqual({ code: 4001, reason: 'api_token rotated' });

    // Deletion, user deletion and a role change cross nodes the same way.
    const s1 = await connect(n1, rotated.body.api_token as string);
    const deleted = s1.closed(5000);
    expect((await n2.api.delete(`/api/users/agents/${agent.id}`, { token: cluster.adminToken })).status).toBeLessThan(300);
    expect(await deleted).toEqual({ code: 4001, reason: 'agent deleted' });

    const doomed = await cluster.createMember();
    const promoted = await cluster.createMember();
    const d = await connect(n3, doomed.token);
    const p = await connect(n2, promoted.token);
    const dClosed = d.closed(5000);
    const pClosed = p.closed(5000);
    await n1.api.delete(`/api/users/${doomed.id}`, { token: cluster.adminToken });
    expect(await dClosed).toEqual({ code: 4001, reason: 'user deleted' });
    await n1.api.patch(`/api/users/${promoted.id}`, { role: 'ADMIN' }, { token: cluster.adminToken });
    expect(await pClosed).toEqual({ code: 4005, reason: 'role changed; reconnect' });
  });

  it('has no gap on resume when a lower id commits after a higher one was delivered', async () => {
    const slowSender = await cluster.createAgent();
    const fastSender = await cluster.createAgent();
    const member = await cluster.createMember();
    const marker = `SLOW-COMMIT-${Math.random().toString(36).slice(2)}`;
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    try {
      // Only rows with the marker are slow: the insert (and so its commit) of that one message
      // waits 1.5 s after it has taken its id.
      await db.query(`CREATE OR REPLACE FUNCTION cluster_test_slow_insert() RETURNS trigger AS $$
        BEGIN
          IF NEW.content = '${marker}' THEN PERFORM pg_sleep(1.5); END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await db.query('CREATE TRIGGER cluster_test_slow_insert BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION cluster_test_slow_insert()');

      const live = await connect(n3, member.token);
      const slow = await connect(n1, slowSender.api_token);
      const fast = await connect(n2, fastSender.api_token);
      slow.send({ type: 'CHAT', payload: marker, target_id: member.id, local_id: 'slow' });
      // The slow row has its id and sleeps inside its transaction.
      await expect
        .poll(
          async () =>
            (await db.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'")).rows[0].n,
          {
            timeout: 5000,
            interval: 20,
          },
        )
        .toBe(1);
      fast.send({ type: 'CHAT', payload: 'fast', target_id: member.id, local_id: 'fast' });
      const [slowAck, fastAck] = await Promise.all([slow.next('ACK', 10_000), fast.next('ACK', 10_000)]);
      expect(slowAck.id).toBeLessThan(fastAck.id!);

      // The live socket sees both in id order: nothing is delivered past a commit still in flight.
      await live.nextWhere((f) => f.type === 'CHAT' && f.payload === 'fast', 'the fast frame', 10_000);
      await live.nextWhere((f) => f.type === 'CHAT' && f.payload === marker, 'the slow frame', 10_000);
      expect(chatIds(live.received)).toEqual([slowAck.id, fastAck.id]);

      // A client that disconnected right after its first frame resumes from that frame's id on
      // another node, and gets the other one: no gap.
      const first = live.received.find((f) => f.type === 'CHAT')!;
      const resumed = await connect(n1, member.token, { since: first.id! });
      const other = first.id === slowAck.id ? fastAck.id : slowAck.id;
      await resumed.nextWhere((f) => f.type === 'CHAT' && f.id === other, `the frame after id ${first.id}`, 10_000);
      expect(chatIds(resumed.received)).toEqual([other]);
    } finally {
      await db.query('DROP TRIGGER IF EXISTS cluster_test_slow_insert ON messages').catch(() => undefined);
      await db.end();
    }
  });

  // Last: it kills node 3 (and starts it again for nothing after it to depend on).
  it('reports a killed node’s agents OFFLINE within CLUSTER_NODE_TTL on the other nodes, unless connected elsewhere', async () => {
    const lonely = await cluster.createAgent();
    const twoHomes = await cluster.createAgent();
    const member = await cluster.createMember();
    const m1 = await connect(n1, member.token);
    const admin2 = await connect(n2, cluster.adminToken);
    await connect(n3, lonely.api_token);
    await connect(n3, twoHomes.api_token);
    await connect(n2, twoHomes.api_token);
    for (const id of [lonely.id, twoHomes.id]) await m1.nextWhere(isPresenceOf(id, true), `agent ${id} online`);

    const killedAt = Date.now();
    await n3.kill('SIGKILL');
    const [seen1, seen2] = await Promise.all([
      m1.nextWhere(isPresenceOf(lonely.id, false), 'the killed node’s agent OFFLINE at node 1', NODE_TTL_MS + 5000),
      admin2.nextWhere(isPresenceOf(lonely.id, false), 'the killed node’s agent OFFLINE at node 2', NODE_TTL_MS + 5000),
    ]);
    // Within the TTL, plus one beat of whatever notices it.
    expect(Date.now() - killedAt).toBeLessThan(NODE_TTL_MS + 1500);
    expect(seen1.payload).toMatchObject({ status: 'OFFLINE', online: false });
    expect(seen2.payload).toEqual(seen1.payload);
    expect(await listedAgent(n1, member.token, lonely.id)).toMatchObject({ online: false });
    expect(await listedAgent(n1, member.token, twoHomes.id)).toMatchObject({ online: true });
    expect(m1.received.filter(isPresenceOf(twoHomes.id, false))).toEqual([]);

    await n3.restart();
  }, 60_000);
});

describe.skipIf(!inject('pgUrl'))('a cluster across a Redis restart [postgres]', () => {
  let redis: PrivateRedis;
  let cluster: TestCluster;
  const sockets = wsClientPool();
  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startCluster({ nodes: 3, env: { REDIS_URL: redis.url, CLUSTER_NODE_TTL: `${NODE_TTL_MS / 1000}s` } });
  }, 120_000);
  afterEach(() => sockets.closeAll());
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  }, 60_000);

  it('loses no acknowledged message when Redis restarts in the middle of traffic', async () => {
    const [n1, n2, n3] = cluster.nodes as [ClusterNode, ClusterNode, ClusterNode];
    const agent = await cluster.createAgent();
    const member = await cluster.createMember();
    const tabs = [await sockets.connectTo(n2.url, member.token), await sockets.connectTo(n3.url, member.token)];
    const a = await sockets.connectTo(n1.url, agent.api_token);
    const acked: number[] = [];
    const send = async (from: number, to: number) => {
      for (let i = from; i < to; i += 1) a.send({ type: 'CHAT', payload: `r ${i}`, target_id: member.id, local_id: `r-${i}` });
      for (let i = from; i < to; i += 1) acked.push((await a.nextWhere((f) => f.type === 'ACK' && f.local_id === `r-${i}`, `ACK r-${i}`, 15_000)).id!);
    };

    await send(0, 100);
    // Redis dies with traffic in flight; more is sent (and acknowledged from the store) while it is down.
    a.send({ type: 'CHAT', payload: 'r 100', target_id: member.id, local_id: 'r-100' });
    await redis.stop('SIGKILL');
    acked.push((await a.nextWhere((f) => f.type === 'ACK' && f.local_id === 'r-100', 'ACK r-100', 15_000)).id!);
    await send(101, 150);
    await redis.restart();
    await send(150, 200);

    // Every acknowledged message reaches both tabs, once, in order, without the tabs reconnecting.
    for (const tab of tabs) await tab.nextWhere((f) => f.type === 'CHAT' && f.payload === 'r 199', 'the last message', 30_000);
    for (const tab of tabs) expect(chatIds(tab.received)).toEqual(acked);
  }, 90_000);

  it('counts an agent with two sockets on a node once when the node registers again, so closing both reports it gone', async () => {
    const [n1] = cluster.nodes as [ClusterNode];
    const { agent, watcher, socket: first } = await watchedAgent(cluster, sockets, n1);
    const second = await sockets.connectTo(n1.url, agent.api_token);

    // Redis comes back empty: node 1 writes what it holds again.
    const since = n1.logs.length;
    await redis.restart();
    await n1.waitForLog((l) => l.msg === 'registered again with the cluster: re-asserted the agents this node holds', {
      description: 'node 1 registering again',
      since,
      timeoutMs: 15_000,
    });
    await first.close();
    await second.close();
    const offline = await watcher.nextWhere(isPresenceOf(agent.id, false), 'the agent offline (both sockets closed)');
    expect(offline.payload).toMatchObject({ status: 'OFFLINE', last_report: 'websocket_disconnected' });
  }, 60_000);

  it('does not report an agent gone when a close gets no answer from Redis while another node holds it', async () => {
    const [n1, n2] = cluster.nodes as [ClusterNode, ClusterNode];
    const { agent, member, watcher, socket: here } = await watchedAgent(cluster, sockets, n1);
    const there = await sockets.connectTo(n2.url, agent.api_token);
    await watcher.nextWhere(isPresenceOf(agent.id, true), 'the agent online (node 2 too)');

    // Redis stalls: node 1's change for the close times out, and whether Redis applied it is unknown.
    const since = n1.logs.length;
    redis.freeze();
    try {
      await here.close();
      await n1.waitForLog((l) => String(l.msg).startsWith('an agent’s close got no answer from Redis'), {
        description: 'the close timing out',
        since,
        timeoutMs: 15_000,
      });
    } finally {
      redis.thaw();
    }
    // Once node 1 has registered again the close is decided: node 2 still holds the agent.
    const decided = await n1.waitForLog((l) => l.msg === 'decided the agents whose close got no answer from Redis', {
      description: 'the close decided',
      since,
      timeoutMs: 15_000,
    });
    expect(decided).toMatchObject({ agents: 1, offline: 0 });
    expect(await listedAgent(n1, member.token, agent.id)).toMatchObject({ online: true });

    await there.close();
    const offline = await watcher.nextWhere(isPresenceOf(agent.id, false), 'the agent offline (its last socket closed)');
    const presence = watcher.received.filter(isPresenceOf(agent.id));
    expect(presence.filter((f) => f.payload.online === false)).toEqual([offline]);
    expect(presence.at(-1)).toBe(offline);
  }, 60_000);
});

describe.skipIf(!inject('pgUrl'))('a cluster where one node reaches Redis slowly [postgres]', () => {
  let proxy: TcpProxy;
  let cluster: TestCluster;
  const sockets = wsClientPool();
  beforeAll(async () => {
    const shared = new URL(SHARED_REDIS_URL);
    proxy = await startTcpProxy({ host: shared.hostname, port: Number(shared.port || 6379) }, { delayMs: SLOW_REDIS_MS });
    cluster = await startCluster({ nodes: 2, nodeEnv: (i): Record<string, string> => (i === 1 ? { REDIS_URL: proxy.via(SHARED_REDIS_URL) } : {}) });
  }, 120_000);
  afterEach(() => sockets.closeAll());
  afterAll(async () => {
    await cluster?.stop();
    await proxy?.close();
  }, 60_000);

  it('keeps an agent ONLINE when it opens a socket on the slow node and then closes its socket on the other', async () => {
    const [n1, n2] = cluster.nodes as [ClusterNode, ClusterNode];
    const { agent, watcher, socket: old } = await watchedAgent(cluster, sockets, n1);

    // Make before break: the new socket is open when its client sees it, so the old one may go.
    const fresh = await sockets.connectTo(n2.url, agent.api_token);
    await old.close();
    await fresh.close();
    const offline = await watcher.nextWhere(isPresenceOf(agent.id, false), 'the agent offline (its last socket closed)', 10_000);
    expect(offline.payload).toMatchObject({ status: 'OFFLINE', last_report: 'websocket_disconnected' });
    // Online on the old socket, online again on the new one, offline once, after both.
    expect(watcher.received.filter(isPresenceOf(agent.id)).map((f) => f.payload.online)).toEqual([true, true, false]);
  }, 30_000);
});
