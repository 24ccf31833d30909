// The cluster test harness itself, on plain nodes: hub processes on one database that start, answer
// readiness, share users, accept sockets, die with SIGKILL and come back on their port; and a
// private Redis that restarts empty on its port.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startCluster, startRedis, type TestCluster } from '../helpers/cluster.js';
import { connectWs } from '../helpers/wsClient.js';

describe.skipIf(!inject('pgUrl'))('cluster harness [postgres]', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startCluster({ nodes: 2 });
  }, 90_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 30_000);

  it('starts each node as its own process on its own port, on one database', async () => {
    const [n1, n2] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    expect([n1.id, n2.id]).toEqual(['n1', 'n2']);
    expect(n1.pid).not.toBe(n2.pid);
    expect(n1.port).not.toBe(n2.port);
    for (const node of cluster.nodes) {
      expect((await node.api.get('/api/ready')).status).toBe(200);
      expect(await node.waitForLog((l) => l['msg'] === `hub listening on http://127.0.0.1:${node.port}`)).toMatchObject({ driver: 'postgres' });
    }
    // A member made through node 1 logs in on node 2, and a token from either works on both.
    const member = await cluster.createMember();
    const token = await cluster.login(member.username, 'member-password', n2);
    expect((await n1.api.get('/api/chat/threads', { token })).status).toBe(200);
    expect((await n1.api.get('/api/chat/threads', { token: `${token}x` })).status).toBe(401);
    const agent = await cluster.createAgent();
    for (const node of cluster.nodes) {
      const ws = await connectWs(node.url, agent.api_token);
      await ws.close();
    }
  });

  it('kills a node with SIGKILL and restarts it on the same port', async () => {
    const n2 = cluster.nodes[1]!;
    const before = n2.logs.length;
    const pid = n2.pid;
    const waiting = n2.waitForLog((l) => l['msg'] === 'never logged', { since: before, timeoutMs: 60_000 });
    await n2.kill('SIGKILL');
    expect(n2.running).toBe(false);
    // A wait on a dead node fails with the exit, not after its timeout.
    await expect(waiting).rejects.toThrow(/node n2 exited \(SIGKILL\)/);
    await expect(fetch(`${n2.url}/api/ready`)).rejects.toThrow();
    // No clean stop was logged: the process had no chance.
    expect(n2.logs.slice(before).map((l) => l['msg'])).not.toContain('stopped cleanly');

    await n2.restart();
    expect(n2.pid).not.toBe(pid);
    expect((await n2.api.get('/api/ready')).status).toBe(200);
    expect((await n2.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);

    // A restart of a running node stops it cleanly first.
    const mark = n2.logs.length;
    await n2.restart();
    expect(n2.logs.slice(mark).map((l) => l['msg'])).toEqual(expect.arrayContaining(['shutting down', 'stopped cleanly']));
    expect((await n2.api.get('/api/ready')).status).toBe(200);
  }, 60_000);
});

describe('private Redis', () => {
  it('restarts empty on the same port; a client reconnects to it', async () => {
    const redis = await startRedis();
    const client = new Redis(redis.url, { retryStrategy: () => 50 });
    client.on('error', () => undefined);
    try {
      await client.set('k', 'v');
      expect(await client.get('k')).toBe('v');
      await redis.stop('SIGKILL');
      expect(redis.running).toBe(false);
      await redis.restart();
      expect(redis.running).toBe(true);
      // Same port, nothing kept (no persistence).
      expect(await client.get('k')).toBeNull();
    } finally {
      client.disconnect();
      await redis.stop();
    }
  });
});

describe.skipIf(!inject('pgUrl'))('cluster harness: a node that does not start [postgres]', () => {
  it('fails the start with the exit code and the end of its stderr, not a bare timeout', async () => {
    // Nothing listens on the private Redis once it is stopped: the node cannot reach it and exits.
    const redis = await startRedis();
    await redis.stop();
    const started = startCluster({ nodes: 1, env: { REDIS_URL: redis.url } });
    const err = (await started.then(
      (c) => c.stop().then(() => undefined),
      (e: unknown) => e,
    )) as Error | undefined;
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/^node n1 did not start: exit code 1; /);
    expect(err!.message).toContain(`stderr: The hub failed to start: cannot reach Redis at ${redis.url}`);
  }, 60_000);
});
