// A singleton lease with fencing: one node of the cluster at a time runs a singleton (Butler,
// authorization expiry, the chat-platform connection), and a node that has lost it cannot write as
// if it still held it.
//
// Why a PostgreSQL advisory lock rather than a Redis lock:
// - PostgreSQL is where the singleton's writes land, so the fencing check runs in the same
//   transaction as the write it guards (`assertCurrent`), with no second system to agree with.
// - A session advisory lock dies with its session: a killed node's lock is gone as soon as the
//   server sees the connection drop (at once on a crash, within the keepalive below on a dead
//   network). No expiry to tune, no renewals racing a TTL, no assumption about clocks or pauses.
// - Redis carries signals only; losing it must not elect a second leader.
//
// Each holder's epoch (cluster_leases.epoch) is raised on every acquisition, so epochs strictly
// increase across takeovers; a write fenced with an older epoch is refused. The fence matters:
// between a holder's session ending and the holder noticing (its next check, at most checkMs +
// checkTimeoutMs later) a peer may already hold the lease, and both believe they lead.
import { createHash } from 'node:crypto';
import { sql, type QueryExecutorProvider } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { Errors } from '../../errors.js';

export interface LeaseOptions {
  /** The singleton's name, e.g. "butler"; nodes competing for one lease use the same name. */
  name: string;
  nodeId: string;
  databaseUrl: string;
  logger: Logger;
  clock: Clock;
  /** Called once per acquisition, after the epoch is raised; the holder runs its singleton from here. */
  onAcquired(epoch: number): void | Promise<void>;
  /** Called at once when the held lease is lost (connection failed, check timed out, superseded). */
  onLost(reason: string): void;
  /** How often a non-holder tries to take the lease (default 1000 ms). */
  retryMs?: number;
  /** How often the holder checks its lock connection (default 1000 ms). */
  checkMs?: number;
  /** A check slower than this counts as a lost connection (default 2000 ms). */
  checkTimeoutMs?: number;
}

/** Something a fenced write's transaction runs on: a Kysely transaction, or a pg client. */
export type Queryable = QueryExecutorProvider | { query(text: string, values: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> };

export interface LeaseHolder {
  nodeId: string;
  epoch: number;
  acquiredAt: string;
}

// Non-holders listen here, so a clean stop hands the lease over without waiting for a retry.
const RELEASED_CHANNEL = 'hub_lease_released';

/** The advisory lock key of a lease name: 64 bits of a hash, as PostgreSQL's signed bigint. */
export function leaseLockKey(name: string): string {
  return createHash('sha256').update(`hub-lease:${name}`).digest().readBigInt64BE(0).toString();
}

/** The lease connection's application_name, as pg_stat_activity shows it. */
export function leaseApplicationName(name: string, nodeId: string): string {
  return `hub-lease:${name}:${nodeId}`.slice(0, 63);
}

export function createLease(options: LeaseOptions) {
  const { name, nodeId, logger, clock } = options;
  const retryMs = options.retryMs ?? 1000;
  const checkMs = options.checkMs ?? 1000;
  const checkTimeoutMs = options.checkTimeoutMs ?? 2 * checkMs;
  const key = leaseLockKey(name);
  const log = logger.child({ lease: name });

  let client: pg.Client | undefined;
  // Bumped whenever a connection is dropped, so callbacks of an older connection do nothing.
  let generation = 0;
  let timer: NodeJS.Timeout | undefined;
  let heldEpoch: number | undefined;
  let started = false;
  let stopped = false;
  let attempt: Promise<void> | undefined;
  let lastTrouble: string | undefined;

  const schedule = (fn: () => void, delayMs: number) => {
    clearTimeout(timer);
    timer = setTimeout(fn, delayMs);
  };

  async function connect(): Promise<pg.Client> {
    if (client) return client;
    const c = new pg.Client({
      connectionString: options.databaseUrl,
      keepAlive: true,
      query_timeout: checkTimeoutMs,
      connectionTimeoutMillis: checkTimeoutMs,
      // pg_stat_activity shows which node's session holds (or waits for) which lease.
      application_name: leaseApplicationName(name, nodeId),
    });
    const gen = generation;
    c.on('error', (err) => fail(gen, `lock connection failed: ${err.message}`));
    c.on('end', () => fail(gen, 'lock connection closed'));
    c.on('notification', (msg) => {
      if (msg.channel === RELEASED_CHANNEL && msg.payload === name && heldEpoch === undefined) compete();
    });
    client = c;
    await c.connect();
    // The server notices a vanished node's connection (and frees its lock) within about 5 s
    // instead of the system's default of hours.
    await c.query('SET tcp_keepalives_idle = 3; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 2');
    await c.query(`LISTEN ${RELEASED_CHANNEL}`);
    return c;
  }

  /** One try at the lock; on success raises the epoch and tells the owner. */
  async function tryAcquire(): Promise<void> {
    const gen = generation;
    const c = await connect();
    const { rows } = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
    if (gen !== generation || stopped) return;
    lastTrouble = undefined;
    if (!rows[0]!.ok) {
      schedule(compete, retryMs);
      return;
    }
    const raised = await c.query<{ epoch: string }>(
      `INSERT INTO cluster_leases (name, epoch, node_id, acquired_at) VALUES ($1, 1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET epoch = cluster_leases.epoch + 1, node_id = EXCLUDED.node_id, acquired_at = EXCLUDED.acquired_at
       RETURNING epoch`,
      [name, nodeId, clock()],
    );
    if (gen !== generation || stopped) return;
    heldEpoch = Number(raised.rows[0]!.epoch);
    log.info({ epoch: heldEpoch, nodeId }, 'lease acquired');
    schedule(check, checkMs);
    // Not awaited: the heartbeat and a stop must not wait for the singleton to start.
    const epoch = heldEpoch;
    void Promise.resolve()
      .then(() => options.onAcquired(epoch))
      .catch((err: unknown) => log.error({ err }, 'lease holder failed to start its singleton'));
  }

  function compete(): void {
    if (stopped || attempt) return;
    const gen = generation;
    attempt = tryAcquire()
      .catch((err: Error) => fail(gen, `lock connection failed: ${err.message}`))
      .finally(() => {
        attempt = undefined;
      });
  }

  /** The holder's heartbeat: the session is alive (so is its lock) and nobody has superseded it. */
  async function check(): Promise<void> {
    const gen = generation;
    const c = client;
    if (!c || heldEpoch === undefined) return;
    try {
      const { rows } = await c.query<{ epoch: string }>('SELECT epoch FROM cluster_leases WHERE name = $1', [name]);
      if (gen !== generation) return;
      const current = rows[0] ? Number(rows[0].epoch) : undefined;
      if (current !== heldEpoch) {
        fail(gen, `superseded: the lease's epoch is now ${current ?? 'gone'}`);
        return;
      }
      schedule(check, checkMs);
    } catch (err) {
      fail(gen, `lock connection check failed: ${(err as Error).message}`);
    }
  }

  /** Drops the connection (and with it the lock), tells the owner if it held the lease, competes again. */
  function fail(gen: number, reason: string): void {
    if (gen !== generation) return;
    generation += 1;
    clearTimeout(timer);
    const c = client;
    client = undefined;
    // Not awaited: on a dead network `end` could wait for a server that never answers.
    c?.end().catch(() => undefined);
    const wasHeld = heldEpoch !== undefined;
    heldEpoch = undefined;
    if (stopped) return;
    if (wasHeld) {
      log.warn({ reason, nodeId }, 'lease lost');
      try {
        options.onLost(reason);
      } catch (err) {
        log.error({ err }, 'lease holder failed to stop its singleton');
      }
      // A node that has just lost the lease steps back for a while, so a healthy peer takes it first.
      schedule(compete, 2 * retryMs);
    } else {
      // Said once per kind of trouble, not once a second while it lasts.
      if (reason !== lastTrouble) log.warn({ reason, nodeId }, 'cannot compete for the lease; trying again every retry period');
      lastTrouble = reason;
      schedule(compete, retryMs);
    }
  }

  return {
    name,
    start(): void {
      if (started) return;
      started = true;
      compete();
    },
    get isLeader(): boolean {
      return heldEpoch !== undefined;
    },
    /** This node's fencing epoch while it holds the lease. */
    get epoch(): number | undefined {
      return heldEpoch;
    },
    /** Who holds the lease (or held it last), as the table says; undefined before anyone has. */
    async holder(db: Queryable): Promise<LeaseHolder | undefined> {
      const row = await leaseRow(db, name, false);
      return row ? { nodeId: String(row['node_id']), epoch: Number(row['epoch']), acquiredAt: String(row['acquired_at']) } : undefined;
    },
    /**
     * The fence: run inside the transaction of a leader-only write. Refuses (503) unless `epoch` is
     * still the lease's epoch. The row is locked FOR SHARE, so a takeover's epoch raise waits for
     * this transaction: the write either commits before the takeover or is refused.
     */
    async assertCurrent(db: Queryable, epoch: number): Promise<void> {
      await assertLeaseEpoch(db, name, epoch);
    },
    /** Releases the lease if held (peers are told at once) and stops competing. */
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await attempt;
      generation += 1;
      const c = client;
      client = undefined;
      const wasHeld = heldEpoch !== undefined;
      heldEpoch = undefined;
      if (!c) return;
      try {
        if (wasHeld) {
          await c.query('SELECT pg_advisory_unlock($1::bigint)', [key]);
          await c.query('SELECT pg_notify($1, $2)', [RELEASED_CHANNEL, name]);
          log.info({ nodeId }, 'lease released');
        }
        await c.end();
      } catch (err) {
        // The session is gone already, and its lock with it.
        log.debug({ err }, 'lease connection closed uncleanly on stop');
      }
    },
  };
}
export type Lease = ReturnType<typeof createLease>;

/** The fence of a leader-only write, for code that has the lease's name and epoch but not the lease. */
export async function assertLeaseEpoch(db: Queryable, name: string, epoch: number): Promise<void> {
  const row = await leaseRow(db, name, true);
  const current = row ? Number(row['epoch']) : undefined;
  if (current !== epoch) throw Errors.unavailable(`this node no longer holds the "${name}" lease (epoch ${epoch}, current ${current ?? 'none'})`);
}

/** The lease's row, through a pg client or a Kysely executor; FOR SHARE inside a fenced write. */
async function leaseRow(db: Queryable, name: string, forShare: boolean): Promise<Record<string, unknown> | undefined> {
  const lock = forShare ? ' FOR SHARE' : '';
  if ('query' in db) return (await db.query(`SELECT epoch, node_id, acquired_at FROM cluster_leases WHERE name = $1${lock}`, [name])).rows[0];
  const { rows } = await sql<Record<string, unknown>>`SELECT epoch, node_id, acquired_at FROM cluster_leases WHERE name = ${name}${sql.raw(lock)}`.execute(db);
  return rows[0];
}
