// The one PostgreSQL connection pool of a hub: Kysely, the batch writer, the default-thread writer,
// migrations and pruning all check connections out of it. pg's own pool listens for errors only on
// idle clients (it removes its listener at checkout), while pg emits 'error' whenever a client's
// socket ends, checked out or not; with nobody listening that error ends the process. So every
// client here has a listener for its whole life, a client that failed is marked broken (what is
// asked of it then fails at once) and is destroyed when released, never handed out again; every
// connection-level failure reaches the caller as a StoreUnavailableError; and connecting,
// statements and replies have time limits, so a store that went silent costs bounded waits. A
// statement left without an answer for a second makes the pool try a new connection: when that
// cannot reach the server within DB_CONNECT_TIMEOUT, every statement waiting since fails at once
// instead of after DB_QUERY_TIMEOUT (a silent network would otherwise hold the writer that long).
import pg from 'pg';
import type { Logger } from 'pino';
import { DEFAULT_PG_TIMEOUTS, type PgTimeouts } from '../config.js';
import { breaksConnection, isConnectionFailure, StoreUnavailableError } from './errors.js';

/** pg_stat_activity's application_name of the hub's connections (operators and tests find them by it). */
export const PG_APPLICATION_NAME = 'agent-hub';

export interface PgPoolConfig {
  url: string;
  /** Connections at most (default 10). */
  max?: number;
  timeouts?: Partial<PgTimeouts>;
  /** pg_stat_activity's application_name (default PG_APPLICATION_NAME). */
  applicationName?: string;
  /** Session settings sent at connect (libpq's `options`, e.g. `-c name=value`). */
  sessionOptions?: string;
}

/** Connections of the pool now: open ones, idle ones among them, and callers waiting for one. */
export interface PoolCounts {
  total: number;
  idle: number;
  waiting: number;
}

/** A checked-out connection. */
/** A statement's text, or its text with a reply time limit of its own (migrations, which may run long). */
export type PgStatement = string | { text: string; query_timeout: number };

export interface PgClient {
  query<R extends pg.QueryResultRow = Record<string, unknown>>(statement: PgStatement, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
  /** Returns it to the pool, or destroys it when it failed. Call exactly once per checkout. */
  release(): void;
}

export interface PgPool {
  connect(): Promise<PgClient>;
  /** One statement on a connection of its own (checked out and released around it). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<pg.QueryResult<R>>;
  counts(): PoolCounts;
  end(): Promise<void>;
}

const INT8_OID = 20;
/**
 * Type parsing shared by every pool of the hub's (the read side's too): ids are BIGINT, and JavaScript
 * numbers hold them exactly up to 2^53, far beyond any real hub.
 */
export const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Orders events of the pool: replies received and connections failed (see `PooledClient.answeredAt`). */
interface Clock {
  tick(): number;
}

/** A statement with no answer for this long makes the pool check that the server still answers (ms). */
const SILENCE_MS = 1000;

class PooledClient implements PgClient {
  private failure: Error | undefined;
  /** When the server last answered on this connection (its opening counts). */
  answeredAt: number;
  /** When the statement in flight was sent (performance.now()), or undefined. */
  sentAt: number | undefined;

  constructor(
    private readonly raw: pg.PoolClient,
    private readonly clock: Clock,
    private readonly onBroken: (err: Error) => void,
  ) {
    this.answeredAt = clock.tick();
  }

  /** The connection failed (its socket ended, the server ended the session, a reply never came). */
  broke(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.onBroken(err);
  }

  /** Drops a connection not known to be dead, silently: one like it just failed (see `connect`). */
  discard(): void {
    this.failure ??= new Error('discarded: another connection failed since this one last had an answer');
    this.release();
  }

  async query<R extends pg.QueryResultRow>(statement: PgStatement, values?: readonly unknown[]): Promise<pg.QueryResult<R>> {
    if (this.failure) throw new StoreUnavailableError(`the PostgreSQL connection failed: ${this.failure.message}`, { cause: this.failure });
    this.sentAt = performance.now();
    try {
      const result = await this.raw.query<R>(statement, values as unknown[] | undefined);
      this.answeredAt = this.clock.tick();
      return result;
    } catch (err) {
      if (!breaksConnection(err)) throw err;
      this.broke(err instanceof Error ? err : new Error(String(err)));
      // A mistake in what was asked (a value pg cannot send) is not the store being away: no 503 for it.
      if (!isConnectionFailure(err)) throw err;
      throw new StoreUnavailableError(`PostgreSQL did not answer: ${messageOf(err)}`, { cause: err });
    } finally {
      this.sentAt = undefined;
    }
  }

  /** The server no longer answers: the statement in flight fails now (its socket is dropped). */
  abandon(err: Error): void {
    this.broke(err);
    this.dropSocket();
  }

  private dropSocket(): void {
    (this.raw as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  release(): void {
    const failure = this.failure;
    // With an error pg's pool ends the client instead of keeping it.
    this.raw.release(failure);
    // Ending waits for the server's goodbye, which a silent server never sends: drop the socket.
    if (failure) this.dropSocket();
  }
}

export function createPgPool(config: PgPoolConfig, logger: Logger): PgPool {
  const t = { ...DEFAULT_PG_TIMEOUTS, ...config.timeouts };
  const max = config.max ?? 10;
  const pool = new pg.Pool({
    connectionString: config.url,
    max,
    application_name: config.applicationName ?? PG_APPLICATION_NAME,
    ...(config.sessionOptions ? { options: config.sessionOptions } : {}),
    connectionTimeoutMillis: t.connectMs,
    statement_timeout: t.statementMs,
    query_timeout: t.queryMs,
    idle_in_transaction_session_timeout: t.idleInTransactionMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: t.keepAliveIdleMs,
    types: pgTypes,
  });
  const clients = new WeakMap<pg.PoolClient, PooledClient>();
  const log = logger.child({ store: 'postgres', ...(config.applicationName ? { pool: config.applicationName } : {}) });
  let ticks = 0;
  const clock: Clock = { tick: () => ++ticks };
  /** When a connection last failed: idle ones that had no answer since are suspect (see `connect`). */
  let lastFailure = 0;
  const onBroken = (err: Error) => {
    lastFailure = clock.tick();
    log.warn({ err: messageOf(err) }, 'a PostgreSQL connection failed: it is discarded, the next query opens a new one');
  };

  // 'connect' fires once per new client, before its first checkout: from here to its end it has a listener.
  /** Every open connection (for the silence check); a connection leaves when pg's pool removes it. */
  const open = new Set<PooledClient>();
  pool.on('connect', (client) => {
    const pooled = new PooledClient(client, clock, onBroken);
    clients.set(client, pooled);
    open.add(pooled);
    client.on('error', (err) => pooled.broke(err));
  });
  pool.on('remove', (client) => {
    const pooled = clients.get(client);
    if (pooled) open.delete(pooled);
  });

  /** Whether a new connection reaches the server and gets an answer within DB_CONNECT_TIMEOUT. */
  async function answers(): Promise<boolean> {
    const probe = new pg.Client({
      connectionString: config.url,
      application_name: config.applicationName ?? PG_APPLICATION_NAME,
      connectionTimeoutMillis: t.connectMs,
      query_timeout: t.connectMs,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      (probe as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    }
  }

  let probing = false;
  let lastProbe = -Infinity;
  /** A statement has waited SILENCE_MS: when the server does not answer a new connection either, the waiting ones fail now. */
  async function checkSilence(): Promise<void> {
    const now = performance.now();
    if (probing || now - lastProbe < SILENCE_MS) return;
    if (![...open].some((c) => c.sentAt !== undefined && now - c.sentAt >= SILENCE_MS)) return;
    probing = true;
    lastProbe = now;
    try {
      if (await answers()) return;
      const waiting = [...open].filter((c) => c.sentAt !== undefined && c.sentAt <= now);
      if (waiting.length === 0) return;
      log.warn(
        { statements: waiting.length, connectTimeoutMs: t.connectMs },
        'PostgreSQL stopped answering (a new connection could not reach it either): the statements waiting for it fail now',
      );
      for (const c of waiting) c.abandon(new Error(`PostgreSQL stopped answering: a new connection got no answer within ${t.connectMs} ms`));
    } finally {
      probing = false;
      lastProbe = performance.now();
    }
  }
  const silence = setInterval(() => void checkSilence(), SILENCE_MS / 2).unref();
  // An idle client failed: pg's pool has already dropped it, and the listener above has logged it.
  pool.on('error', () => undefined);

  /**
   * A connection that had no answer since another one failed is dropped instead of handed out: when
   * the server or the network went away they all went with it, and an idle one would only be found
   * dead after DB_QUERY_TIMEOUT; a new connection answers, or fails within DB_CONNECT_TIMEOUT.
   */
  async function connect(): Promise<PgClient> {
    // Bounded: a server that keeps failing connections as they open must not keep a caller here.
    for (let dropped = 0; ; dropped++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw new StoreUnavailableError(`could not get a PostgreSQL connection: ${messageOf(err)}`, { cause: err });
      }
      const pooled = clients.get(client)!;
      if (pooled.answeredAt > lastFailure || dropped >= max) return pooled;
      pooled.discard();
    }
  }

  return {
    connect,
    async query<R extends pg.QueryResultRow>(text: string, values?: readonly unknown[]) {
      const client = await connect();
      try {
        return await client.query<R>(text, values);
      } finally {
        client.release();
      }
    },
    counts: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    end: () => {
      clearInterval(silence);
      return pool.end();
    },
  };
}
