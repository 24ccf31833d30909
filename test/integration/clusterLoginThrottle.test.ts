// The failed-login throttle shared through Redis: two nodes' throttles on one Redis enforce one
// budget, reserved atomically before the hash (parallel guesses on both nodes get exactly the
// budget), and with Redis out of reach each node still throttles on its own and nothing throws.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLoginThrottle, type LoginThrottle } from '../../src/auth/loginThrottle.js';
import { HubError } from '../../src/errors.js';
import { SHARED_REDIS_URL, startRedis } from '../helpers/cluster.js';

/** The next `name` event (events.once would reject on the connection errors that come with it). */
const event = (client: Redis, name: string) => new Promise<void>((resolve) => client.once(name, () => resolve()));

const OPTIONS = { maxFailures: 3, maxFailuresPerAddress: 5, maxFailuresPerAccount: 8, windowSeconds: 60 };

/** One wrong password: reserved, then settled as a failure. */
const fail = async (throttle: LoginThrottle, address: string, username: string) => (await throttle.reserve(address, username)).failed();
/** One right password. */
const succeed = async (throttle: LoginThrottle, address: string, username: string) => (await throttle.reserve(address, username)).succeeded();

describe('login throttle on Redis', () => {
  const clients: Redis[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });
  const redis = (url: string) => {
    const client = new Redis(url, { retryStrategy: () => 100 });
    // Connection trouble is the point of one test; the insurance counters answer meanwhile.
    client.on('error', () => undefined);
    clients.push(client);
    return client;
  };
  // Each test its own prefix, so runs never see each other's failures on the shared Redis.
  const prefix = () => `test-${randomBytes(6).toString('hex')}:`;
  const refusal = (promise: Promise<unknown>) => expect(promise).rejects.toMatchObject({ kind: 'rate_limited', status: 429 });

  it('shares one budget between two nodes', async () => {
    const keyPrefix = prefix();
    const [a, b] = [redis(SHARED_REDIS_URL), redis(SHARED_REDIS_URL)];
    await Promise.all([a.ping(), b.ping()]);
    const node1 = createLoginThrottle({ ...OPTIONS, redis: a, keyPrefix });
    const node2 = createLoginThrottle({ ...OPTIONS, redis: b, keyPrefix });

    await fail(node1, '10.0.0.1', 'alice');
    await fail(node2, '10.0.0.1', 'alice');
    await fail(node2, '10.0.0.1', 'alice');
    // Three failures in all, two of them on node 2 and one on node 1: both nodes refuse the pair.
    await refusal(node1.reserve('10.0.0.1', 'alice'));
    await refusal(node2.reserve('10.0.0.1', 'alice'));
    // Another name from the same address still may try, until the address's budget (5) is spent.
    await fail(node1, '10.0.0.1', 'bob');
    await fail(node2, '10.0.0.1', 'carol');
    await refusal(node2.reserve('10.0.0.1', 'dave'));
    await refusal(node1.reserve('10.0.0.1', 'dave'));
    // Another address is untouched; the counts live on Redis under the prefix, and refusals counted nothing.
    await fail(node2, '10.0.0.2', 'alice');
    expect((await a.keys(`${keyPrefix}*`)).sort()).toEqual(
      [
        ...['10.0.0.1', '10.0.0.2'].map((address) => `${keyPrefix}login-failures:address:${address}`),
        ...['alice', 'bob', 'carol'].map((n) => `${keyPrefix}login-failures:account:${n}`),
        ...['10.0.0.1|alice', '10.0.0.1|bob', '10.0.0.1|carol', '10.0.0.2|alice'].map((pair) => `${keyPrefix}login-failures:name:${pair}`),
      ].sort(),
    );
    expect(await a.get(`${keyPrefix}login-failures:account:alice`)).toBe('4');
    expect(await a.get(`${keyPrefix}login-failures:address:10.0.0.1`)).toBe('5');

    // A success on one node forgets the pair's failures on every node; the address keeps its count.
    const freshPrefix = prefix();
    const fresh = createLoginThrottle({ ...OPTIONS, redis: a, keyPrefix: freshPrefix });
    await fail(fresh, '10.0.0.3', 'erin');
    await fail(fresh, '10.0.0.3', 'erin');
    await succeed(fresh, '10.0.0.3', 'erin');
    await fail(fresh, '10.0.0.3', 'erin');
    await fail(fresh, '10.0.0.3', 'erin');
    await (await fresh.reserve('10.0.0.3', 'erin')).abandoned();
    expect(await a.get(`${freshPrefix}login-failures:address:10.0.0.3`)).toBe('4');
    expect(await a.get(`${freshPrefix}login-failures:name:10.0.0.3|erin`)).toBe('2');
  });

  it('gives exactly the budget to 100 guesses sent at once through two nodes', async () => {
    const keyPrefix = prefix();
    const [a, b] = [redis(SHARED_REDIS_URL), redis(SHARED_REDIS_URL)];
    await Promise.all([a.ping(), b.ping()]);
    // No cap on logins in progress: the shared reservation alone must hold the line.
    const nodes = [a, b].map((client) => createLoginThrottle({ ...OPTIONS, maxInProgress: 100, redis: client, keyPrefix }));
    const answers = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => nodes[i % 2]!.reserve('10.0.0.1', 'alice')));
    const granted = answers.filter((r) => r.status === 'fulfilled');
    expect(granted).toHaveLength(OPTIONS.maxFailures);
    for (const r of answers) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'rate_limited', status: 429 });
    for (const r of granted) r.value.failed();
    expect(await a.get(`${keyPrefix}login-failures:name:10.0.0.1|alice`)).toBe('3');
    expect(await a.get(`${keyPrefix}login-failures:account:alice`)).toBe('3');
  });

  it('locks a name on every node once guesses from rotating addresses reach the account cap', async () => {
    const keyPrefix = prefix();
    const [a, b] = [redis(SHARED_REDIS_URL), redis(SHARED_REDIS_URL)];
    await Promise.all([a.ping(), b.ping()]);
    const nodes = [a, b].map((client) => createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix }));
    for (let i = 0; i < OPTIONS.maxFailuresPerAccount; i += 1) await fail(nodes[i % 2]!, `10.0.1.${i}`, 'alice');
    for (const node of nodes) {
      const locked = node.reserve('10.0.2.1', 'alice');
      await refusal(locked);
      await expect(locked).rejects.toMatchObject({
        message: expect.stringMatching(/^too many failed logins for this name from all addresses; its logins are locked for \d+ s$/),
      });
    }
    // The addresses themselves may still try other names.
    await fail(nodes[0]!, '10.0.1.0', 'bob');
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

    await fail(throttle, '10.0.0.1', 'alice');
    await fail(throttle, '10.0.0.1', 'alice');
    // A login that succeeds meanwhile does not wait for Redis.
    const started = Date.now();
    await succeed(throttle, '10.0.0.1', 'alice');
    expect(Date.now() - started).toBeLessThan(200);
    for (let i = 0; i < 3; i += 1) await fail(throttle, '10.0.0.1', 'alice');
    const refused = throttle.reserve('10.0.0.1', 'alice');
    await expect(refused).rejects.toBeInstanceOf(HubError);
    await refusal(refused);
    // Five failures from that address spent its budget too; another address still may try.
    await refusal(throttle.reserve('10.0.0.1', 'bob'));
    await fail(throttle, '10.0.0.2', 'bob');
    expect(down.status).not.toBe('ready');
  });

  it('falls back to the node’s own count when Redis dies, and shares again once it is back', async () => {
    const server = await startRedis();
    try {
      const client = redis(server.url);
      await client.ping();
      const throttle = createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix: prefix() });
      await fail(throttle, '10.0.0.1', 'alice');
      await fail(throttle, '10.0.0.1', 'alice');
      await server.stop('SIGKILL');
      if (client.status === 'ready') await event(client, 'close');
      // Redis is gone with its two failures; the node counts on its own (three more are allowed).
      for (let i = 0; i < 3; i += 1) await fail(throttle, '10.0.0.1', 'alice');
      await refusal(throttle.reserve('10.0.0.1', 'alice'));

      await server.restart();
      if (client.status !== 'ready') await event(client, 'ready');
      // Back on the (empty) shared store: counted there again.
      const sharedPrefix = prefix();
      const otherClient = redis(server.url);
      await otherClient.ping();
      const other = createLoginThrottle({ ...OPTIONS, redis: otherClient, keyPrefix: sharedPrefix });
      const mine = createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix: sharedPrefix });
      for (let i = 0; i < 3; i += 1) await fail(mine, '10.0.0.9', 'bob');
      await refusal(other.reserve('10.0.0.9', 'bob'));
    } finally {
      await server.stop();
    }
  });

  it('answers from the node’s own count when Redis stalls with calls in flight', async () => {
    const server = await startRedis();
    try {
      const client = redis(server.url);
      await client.ping();
      const throttle = createLoginThrottle({ ...OPTIONS, redis: client, keyPrefix: prefix(), redisTimeoutMs: 100 });
      // Redis keeps its connections but answers nothing.
      server.freeze();
      expect(client.status).toBe('ready');
      const started = Date.now();
      for (let i = 0; i < 3; i += 1) await fail(throttle, '10.0.0.1', 'alice');
      await refusal(throttle.reserve('10.0.0.1', 'alice'));
      await succeed(throttle, '10.0.0.1', 'bob');
      await fail(throttle, '10.0.0.1', 'bob');
      // Eight calls, each given up after 100 ms, while Redis never answered.
      expect(client.status).toBe('ready');
      expect(Date.now() - started).toBeLessThan(5000);
      server.thaw();
      await client.ping();
    } finally {
      await server.stop();
    }
  });
});
