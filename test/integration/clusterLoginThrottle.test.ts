// The failed-login throttle shared through Redis: two nodes' throttles on one Redis enforce one
// budget, and with Redis out of reach each node still throttles on its own and nothing throws.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoginThrottle } from '../../src/auth/loginThrottle.js';
import { HubError } from '../../src/errors.js';
import { SHARED_REDIS_URL, startRedis } from '../helpers/cluster.js';

const OPTIONS = { maxFailures: 3, maxFailuresPerAddress: 5, windowSeconds: 60 };

describe('login throttle on Redis', () => {
  const clients: Redis[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  const redis = (url: string) => {
    const client = new Redis(url, { retryStrategy: () => 100 });
    // Connection trouble is the point of one test; the insurance limiter answers meanwhile.
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  // Each test its own prefix, so runs never see each other's failures on the shared Redis.
  const prefix = () => `test-${randomBytes(6).toString('hex')}:`;
  const refusal = (promise: Promise<void>) => expect(promise).rejects.toMatchObject({ kind: 'rate_limited', status: 429 });

  it('shares one budget between two nodes', async () => {
    const keyPrefix = prefix();
    const [a, b] = [redis(SHARED_REDIS_URL), redis(SHARED_REDIS_URL)];
    await Promise.all([a.ping(), b.ping()]);
    const node1 = createLoginThrottle({ ...OPTIONS, redis: a, keyPrefix });
    const node2 = createLoginThrottle({ ...OPTIONS, redis: b, keyPrefix });

    await node1.failed('10.0.0.1', 'alice');
    await node2.failed('10.0.0.1', 'alice');
    await node1.check('10.0.0.1', 'alice');
    await node2.failed('10.0.0.1', 'alice');
    // Three failures in all, two of them on node 2 and one on node 1: both nodes refuse the pair.
    await refusal(node1.check('10.0.0.1', 'alice'));
    await refusal(node2.check('10.0.0.1', 'alice'));
    // Another name from the same address still may try, until the address's budget (5) is spent.
    await node1.check('10.0.0.1', 'bob');
    await node1.failed('10.0.0.1', 'bob');
    await node2.failed('10.0.0.1', 'carol');
    await refusal(node2.check('10.0.0.1', 'dave'));
    await refusal(node1.check('10.0.0.1', 'dave'));
    // Another address is untouched; the counts live on Redis under the prefix.
    await node2.check('10.0.0.2', 'alice');
    expect((await a.keys(`${keyPrefix}*`)).sort()).toEqual(
      [`${keyPrefix}login-failures:address:10.0.0.1`, ...['alice', 'bob', 'carol'].map((n) => `${keyPrefix}login-failures:name:10.0.0.1|${n}`)].sort(),
    );

    // A success on one node forgets the pair's failures on every node, not the address's.
    const fresh = createLoginThrottle({ ...OPTIONS, redis: a, keyPrefix: prefix() });
    await fresh.failed('10.0.0.3', 'erin');
    await fresh.failed('10.0.0.3', 'erin');
    await fresh.succeeded('10.0.0.3', 'erin');
    await fresh.failed('10.0.0.3', 'erin');
    await fresh.failed('10.0.0.3', 'erin');
    await fresh.check('10.0.0.3', 'erin');
  });

  it('keeps throttling per node, without throwing, while Redis is unreachable', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as { port: number };
    closed.close();
    await once(closed, 'close');
    const down = redis(`redis://127.0.0.1:${port}`);
    expect(down.status).not.toBe('ready');
    const throttle = createLoginThrottle({ ...OPTIONS, redis: down, keyPrefix: prefix() });

    await throttle.check('10.0.0.1', 'alice');
    for (let i = 0; i < 3; i += 1) await throttle.failed('10.0.0.1', 'alice');
    const refused = throttle.check('10.0.0.1', 'alice');
    await expect(refused).rejects.toBeInstanceOf(HubError);
    await refusal(refused);
    await throttle.check('10.0.0.1', 'bob');
    await throttle.succeeded('10.0.0.1', 'alice');
    await throttle.check('10.0.0.1', 'alice');
    expect(down.status).not.toBe('ready');
  });

  it('falls back to the node’s own count when Redis dies, and shares again once it is back', async () => {
    const server = await startRedis();
    try {
      const client = redis(server.url);
      await client.ping();
      const throttle = createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix: prefix() });
      await throttle.failed('10.0.0.1', 'alice');
      await throttle.failed('10.0.0.1', 'alice');
      await server.stop('SIGKILL');
      await once(client, 'close');
      // Redis is gone with its two failures; the node counts on its own (three more are allowed).
      for (let i = 0; i < 2; i += 1) {
        await throttle.check('10.0.0.1', 'alice');
        await throttle.failed('10.0.0.1', 'alice');
      }
      await throttle.check('10.0.0.1', 'alice');
      await throttle.failed('10.0.0.1', 'alice');
      await refusal(throttle.check('10.0.0.1', 'alice'));

      await server.restart();
      await once(client, 'ready');
      // Back on the (empty) shared store: counted there again.
      const sharedPrefix = prefix();
      const otherClient = redis(server.url);
      await otherClient.ping();
      const other = createLoginThrottle({ ...OPTIONS, redis: otherClient, keyPrefix: sharedPrefix });
      const mine = createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix: sharedPrefix });
      for (let i = 0; i < 3; i += 1) await mine.failed('10.0.0.9', 'bob');
      await refusal(other.check('10.0.0.9', 'bob'));
    } finally {
      await server.stop();
    }
  });
});
