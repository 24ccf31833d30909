// The presence registry's scripts on a real Redis: counts per node, totals over live nodes, a dead
// node reaped once, and a node that was reaped changing nothing until it registers again.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, type Registry } from '../../src/cluster/presence/registry.js';
import { SHARED_REDIS_URL } from '../helpers/cluster.js';
import { uniqueName } from '../helpers/hub.js';

const TTL_MS = 200;

describe('cluster presence registry [redis]', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis(SHARED_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  });
  afterAll(async () => {
    await redis?.quit();
  });

  const registries = (name: string) => {
    const node = (nodeId: string): Registry => createRegistry({ redis, name, nodeId, ttlMs: TTL_MS });
    return { a: node('a'), b: node('b') };
  };

  /** Beats `reaper` until it finds `dead` silent for the TTL (the wait is Redis's clock). */
  async function reapUntil(reaper: Registry, dead: string) {
    for (;;) {
      await reaper.beat();
      const out = await reaper.reap();
      if (out.dead.includes(dead)) return out;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  it('totals an agent over the live nodes and orders every decision', async () => {
    const { a, b } = registries(uniqueName('reg').replaceAll('-', '_'));
    expect(await a.beat()).toBe(true);
    expect(await b.beat()).toBe(true);
    expect(await a.beat()).toBe(false);
    const first = await a.change(7, 1);
    const second = await b.change(7, 1);
    expect(first).toMatchObject({ total: 1, registered: true });
    expect(second).toMatchObject({ total: 2, registered: true });
    const closed = await a.change(7, -1);
    expect(closed).toMatchObject({ total: 1, registered: true });
    expect(await b.change(7, -1)).toMatchObject({ total: 0, registered: true });
    expect(second.seq).toBeGreaterThan(first.seq);
    expect(closed.seq).toBeGreaterThan(second.seq);
  });

  it('changes nothing for a node that was declared dead, and says so, until it registers again', async () => {
    const name = uniqueName('reg').replaceAll('-', '_');
    const { a, b } = registries(name);
    await a.beat();
    await b.beat();
    await a.change(7, 1);
    await b.change(8, 1);

    // a falls silent; b declares it dead and learns that agent 7 is held by no live node.
    const reaped = await reapUntil(b, 'a');
    expect(reaped.offline.map((d) => d.userId)).toEqual([7]);

    // a, not knowing, reports another socket of agent 7: nothing is counted, and a is still not a
    // member, so its next beat says it must register its whole hash again.
    const change = await a.change(7, 1);
    expect(change).toMatchObject({ total: 0, registered: false });
    expect(await redis.hgetall(`${name}:presence:a`)).toEqual({});
    expect((await b.live()).map((n) => n.nodeId)).toEqual(['b']);
    expect(await a.beat()).toBe(true);
    await a.register(new Map([[7, 2]]));
    expect(await b.change(7, 1)).toMatchObject({ total: 3, registered: true });
    expect(await b.unheld([7, 8, 9])).toEqual([expect.objectContaining({ userId: 9 })]);
  });
});
