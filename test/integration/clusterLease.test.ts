// The singleton lease on real PostgreSQL: one holder among several keepers on their own
// connections, handover on a clean stop, on a killed session and on a killed process, epochs that
// only rise, and the fence refusing a deposed holder's write.
import { spawn } from 'node:child_process';
import { EventEmitter, once } from 'node:events';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createSystemClock } from '../../src/clock.js';
import { createLease, leaseApplicationName, type Lease } from '../../src/cluster/lease/lease.js';
import { HubError } from '../../src/errors.js';
import { openStore, type Store } from '../../src/store/db.js';
import { createAuthorizationsRepo } from '../../src/store/repositories/authorizations.js';
import { migrate } from '../../src/store/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

const HOLDER = fileURLToPath(new URL('../helpers/clusterLeaseHolder.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(HOLDER).resolve('tsx/esm')).href;

// Sessions of this test's database waiting for another transaction (a row lock).
const WAITING_ON_ROW = `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE a.datname = current_database() AND NOT l.granted AND l.locktype = 'transactionid'`;

interface Keeper {
  nodeId: string;
  lease: Lease;
  acquired: number[];
  lost: string[];
  events: EventEmitter;
}

describe.skipIf(!inject('pgUrl'))('cluster lease [postgres]', () => {
  let database: TestDatabase;
  let store: Store;
  let url: string;
  let admin: pg.Client;
  const keepers: Keeper[] = [];
  let leaseName = '';
  let counter = 0;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    url = database.env['DATABASE_URL']!;
    store = openStore({ driver: 'postgres', url });
    await migrate(store);
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterEach(async () => {
    await Promise.all(keepers.splice(0).map((k) => k.lease.stop()));
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await database?.drop();
  });

  function keeper(nodeId: string): Keeper {
    const events = new EventEmitter();
    const k: Keeper = {
      nodeId,
      acquired: [],
      lost: [],
      events,
      lease: createLease({
        name: leaseName,
        nodeId,
        databaseUrl: url,
        logger: pino({ level: 'silent' }),
        clock: createSystemClock(),
        onAcquired: (epoch) => {
          k.acquired.push(epoch);
          events.emit('acquired', epoch);
        },
        onLost: (reason) => {
          k.lost.push(reason);
          events.emit('lost', reason);
        },
      }),
    };
    keepers.push(k);
    return k;
  }

  /** Resolves with the first of `ks` to acquire the lease (from now on). */
  const nextHolder = (ks: Keeper[]) =>
    Promise.race(ks.map((k) => once(k.events, 'acquired').then(([epoch]) => ({ keeper: k, epoch: epoch as number, at: Date.now() }))));

  const holders = (ks: Keeper[]) => ks.filter((k) => k.lease.isLeader);

  async function terminateSession(k: Keeper): Promise<void> {
    const { rows } = await admin.query('SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1', [
      leaseApplicationName(leaseName, k.nodeId),
    ]);
    expect(rows).toEqual([{ done: true }]);
  }

  // Each test competes for its own lease, so nothing of an earlier test's keepers can interfere.
  const freshName = () => {
    leaseName = `test-${process.pid}-${(counter += 1)}`;
  };

  /** A fresh lease held by n1 (at epoch `old`), then handed over on n1's clean stop to n2 (at `current`). */
  async function handedOver(): Promise<{ a: Keeper; b: Keeper; old: number; current: number }> {
    freshName();
    const a = keeper('n1');
    const acquired = nextHolder([a]);
    a.lease.start();
    const { epoch: old } = await acquired;
    const b = keeper('n2');
    b.lease.start();
    const taken = nextHolder([b]);
    await a.lease.stop();
    const { epoch: current } = await taken;
    return { a, b, old, current };
  }

  it('lets exactly one of three keepers hold it, and a clean stop hands it over within a second', async () => {
    freshName();
    const ks = [keeper('n1'), keeper('n2'), keeper('n3')];
    const first = nextHolder(ks);
    for (const k of ks) k.lease.start();
    const { keeper: holder, epoch } = await first;
    expect(epoch).toBe(1);
    expect(holders(ks)).toEqual([holder]);
    expect(await holder.lease.holder(admin)).toMatchObject({ nodeId: holder.nodeId, epoch: 1 });

    const others = ks.filter((k) => k !== holder);
    const next = nextHolder(others);
    const stoppedAt = Date.now();
    await holder.lease.stop();
    const taken = await next;
    expect(taken.at - stoppedAt).toBeLessThan(1000);
    expect(taken.epoch).toBe(2);
    expect(holders(ks)).toEqual([taken.keeper]);
    // A clean stop is not a loss.
    expect(holder.lost).toEqual([]);
    expect(await holder.lease.holder(admin)).toMatchObject({ nodeId: taken.keeper.nodeId, epoch: 2 });
  });

  it('hands over when the holder’s session is terminated; the old holder reports the loss', async () => {
    freshName();
    const ks = [keeper('n1'), keeper('n2')];
    const first = nextHolder(ks);
    for (const k of ks) k.lease.start();
    const { keeper: holder, epoch } = await first;
    const other = ks.find((k) => k !== holder)!;

    const lost = once(holder.events, 'lost');
    const next = nextHolder([other]);
    const killedAt = Date.now();
    await terminateSession(holder);
    const [reason] = (await lost) as [string];
    expect(reason).toMatch(/lock connection/);
    expect(holder.lease.isLeader).toBe(false);
    expect(holder.lease.epoch).toBeUndefined();
    const taken = await next;
    // Peers retry every second.
    expect(taken.at - killedAt).toBeLessThan(2000);
    expect(taken.epoch).toBeGreaterThan(epoch);
    expect(holders(ks)).toEqual([other]);

    // The deposed keeper competes again and takes over when the new holder goes in turn.
    const back = nextHolder([holder]);
    await terminateSession(other);
    const again = await back;
    expect(again.epoch).toBeGreaterThan(taken.epoch);
    expect(holders(ks)).toEqual([holder]);
    expect([...ks.flatMap((k) => k.acquired)].sort((a, b) => a - b)).toEqual([epoch, taken.epoch, again.epoch]);
  });

  it('steps down when its epoch is raised under it (superseded), and competes again', async () => {
    freshName();
    const a = keeper('n1');
    const first = nextHolder([a]);
    a.lease.start();
    const { epoch } = await first;
    const lost = once(a.events, 'lost');
    const again = nextHolder([a]);
    await admin.query('UPDATE cluster_leases SET epoch = epoch + 1 WHERE name = $1', [leaseName]);
    const [reason] = (await lost) as [string];
    expect(reason).toBe(`superseded: the lease's epoch is now ${epoch + 1}`);
    // Alone, it takes the lease back, above the raised epoch.
    expect((await again).epoch).toBe(epoch + 2);
  });

  it('fences: a write checked with a deposed epoch is refused inside its transaction', async () => {
    const { b, old, current } = await handedOver();
    expect(current).toBe(old + 1);

    // Through Kysely (as the hub's store writes) and through a plain pg client.
    const refused = store.db.transaction().execute((trx) => b.lease.assertCurrent(trx, old));
    await expect(refused).rejects.toBeInstanceOf(HubError);
    await expect(refused).rejects.toMatchObject({ kind: 'unavailable', message: expect.stringContaining(`epoch ${old}, current ${current}`) });
    await store.db.transaction().execute((trx) => b.lease.assertCurrent(trx, current));
    await expect(b.lease.assertCurrent(admin, old)).rejects.toMatchObject({ kind: 'unavailable' });
    await b.lease.assertCurrent(admin, current);
  });

  it("refuses a deposed leader's expiry of an authorization request, and lets the current one's through", async () => {
    const { a, b, old, current } = await handedOver();

    const repo = createAuthorizationsRepo(store.db);
    const actionId = `fence-${current}`;
    const at = new Date().toISOString();
    await store.db
      .insertInto('users')
      .values({
        id: 9000 + current,
        username: `fence-user-${current}`,
        role: 'AGENT',
        actor_type: 'SYSTEM',
        status: 'OFFLINE',
        online: 0,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await repo.insert({
      action_id: actionId,
      requester_id: 9000 + current,
      conversation_id: null,
      approver_id: null,
      target_agent_id: 9000 + current,
      target_agent_name: 'x',
      command: 'restart',
      reason: 'test',
      status: 'PENDING',
      message_ids: '[]',
      decided_by: null,
      created_at: at,
      expires_at: at,
      decided_at: null,
    });
    // The old holder's timer fires late: its expiry is refused and the request stays PENDING.
    await expect(repo.decide(actionId, 'EXPIRED', null, at, (trx) => a.lease.assertCurrent(trx, old))).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await repo.find(actionId))?.status).toBe('PENDING');
    expect(await repo.decide(actionId, 'EXPIRED', null, at, (trx) => b.lease.assertCurrent(trx, current))).toBe(true);
    expect((await repo.find(actionId))?.status).toBe('EXPIRED');
  });

  it('makes a takeover wait for a fenced write in flight, which then commits under the old epoch', async () => {
    freshName();
    const a = keeper('n1');
    const acquired = nextHolder([a]);
    a.lease.start();
    const { epoch } = await acquired;

    // The old holder's write has passed its fence and not committed yet.
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    try {
      await writer.query('BEGIN');
      await a.lease.assertCurrent(writer, epoch);
      const b = keeper('n2');
      const taken = nextHolder([b]);
      b.lease.start();
      await terminateSession(a);
      // b holds the lock but its epoch raise waits on the write's row lock.
      await expect.poll(async () => (await admin.query(WAITING_ON_ROW)).rows[0].n).toBe(1);
      expect(b.acquired).toEqual([]);
      await writer.query('COMMIT');
      expect((await taken).epoch).toBe(epoch + 1);
    } finally {
      await writer.end();
    }
  });

  it('is taken over within 10 s when the holder’s process is killed with SIGKILL', async () => {
    freshName();
    const child = spawn(process.execPath, ['--import', TSX, HOLDER, url, leaseName, 'child'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    try {
      const lines = createInterface({ input: child.stdout! });
      const [line] = (await once(lines, 'line')) as [string];
      expect(line).toBe('acquired 1');
      const k = keeper('n2');
      const taken = nextHolder([k]);
      k.lease.start();
      expect(await k.lease.holder(admin)).toMatchObject({ nodeId: 'child', epoch: 1 });
      const killedAt = Date.now();
      child.kill('SIGKILL');
      const { epoch, at } = await taken;
      expect(epoch).toBe(2);
      expect(at - killedAt).toBeLessThan(10_000);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
