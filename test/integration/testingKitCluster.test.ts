// The test kit's cluster (startTestHub({ nodes })): in-process nodes of one hub on a fresh PostgreSQL
// database and the shared Redis. Chat crosses nodes; the actors are read per node and across; a
// stopped leader's clients reconnect to another node through the node's address, and Butler answers
// from the node that takes the lease over; a cluster without its PostgreSQL and Redis is refused.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, textReply, type TestHub } from '../../src/testing/index.js';
import { startKitCluster } from '../helpers/kit.js';

describe('@agent-hub/testing with nodes', () => {
  let hub: TestHub | undefined;
  afterEach(async () => {
    await hub?.stop();
    hub = undefined;
  });

  it('delivers a chat from an agent on node 0 to a human on node 1, and shows each node its own actors', async () => {
    hub = await startKitCluster(2, { trace: true });
    expect(hub.nodes.map((n) => n.id)).toEqual(['n1', 'n2']);
    // A cluster's nodes stop one by one instead (restart is for a single hub), and nothing stopped.
    await expect(hub.restart()).rejects.toThrow(/hub\.restart is for a single hub/);
    expect(hub.nodes.map((n) => n.running)).toEqual([true, true]);
    const agent = await hub.agent('weather', { node: 0 });
    const alice = await hub.nodes[1]!.human('alice');
    agent.onChat((frame) => agent.reply(frame, `sunny, ${frame.payload}`));

    await agent.send({ type: 'CHAT', target_id: alice.id, payload: 'good morning' });
    await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: 'good morning' });
    await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'Oslo?' });
    await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: 'sunny, Oslo?' });

    // Each node holds its own socket; across nodes, each view says where it lives.
    const usersOn = (index: number) => hub!.nodes[index]!.actors.list({ kind: 'connection' }).map((c) => (c.context['user'] as { id: number }).id);
    expect(usersOn(0)).toEqual([agent.id]);
    expect(usersOn(1)).toEqual([alice.id]);
    expect(hub.actors.list({ kind: 'connection' }).map((c) => c.node)).toEqual(['n1', 'n2']);
    expect(hub.actors.list({ kind: 'router' }).map((r) => r.node)).toEqual(['n1', 'n2']);
    // The trace names each actor with its node.
    expect(hub.trace({ actor: /^n2\/connection-\d+$/ }).length).toBeGreaterThan(0);
    expect(hub.explain()).toMatch(/^ {2}n1\/router \(router\): /m);

    // Quiesce covers the other node's hand-over: a batch queued on node 0 is on node 1's socket when it resolves.
    const sender = { id: agent.id, username: agent.username, role: 'AGENT' as const };
    void hub.nodes[0]!.hub.pipeline.post(sender, { type: 'CHAT', target_id: alice.id, payload: 'queued' });
    await hub.quiesce();
    expect(alice.frames.some((f) => f.type === 'CHAT' && f.payload === 'queued')).toBe(true);
  });

  it('moves the clients of a stopped leader to the other node, where Butler answers once it leads', async () => {
    hub = await startKitCluster(2);
    const leader = await hub.leader();
    const other = hub.nodes.find((n) => n !== leader)!;
    expect(other.isLeader()).toBe(false);
    const alice = await leader.human('alice');
    hub.model.enqueue(textReply('Answered by the first leader.'));
    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'who answers?' });
    await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'Answered by the first leader.' });

    await leader.stop();
    expect(leader.running).toBe(false);
    expect(leader.actors.list()).toEqual([]);
    expect(await hub.leader()).toBe(other);
    // Alice's client reconnected by itself, through her node's address, to the node still running.
    await other.actors.waitFor('connection-1', (c) => (c.context['user'] as { id: number } | undefined)?.id === alice.id, { timeout: 10_000 });
    hub.model.enqueue(textReply('Answered by the next leader.'));
    await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'and now?' });
    await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'Answered by the next leader.' }, { within: '10s' });
    await expect(hub.human('bob', { node: leader.index })).rejects.toThrow(`node ${leader.index} (${leader.id}) is stopped: connect to a running node`);
  });

  it('refuses a cluster without its PostgreSQL database and Redis, before starting anything', async () => {
    await expect(startTestHub({ nodes: 2 })).rejects.toThrow(
      'startTestHub: a cluster (nodes: 2) needs databaseUrl (PostgreSQL) and redisUrl (Redis): its nodes share one PostgreSQL database and one Redis',
    );
    await expect(startTestHub({ nodes: 2, databaseUrl: 'postgres://127.0.0.1:1/unused' })).rejects.toThrow('needs redisUrl (Redis)');
    await expect(startTestHub({ redisUrl: 'redis://127.0.0.1:1' })).rejects.toThrow('a cluster (nodes: 1, redisUrl) needs databaseUrl (PostgreSQL)');
    await expect(startTestHub({ nodes: 0 })).rejects.toThrow('nodes must be a whole number of at least 1 (got 0)');
  });
});
