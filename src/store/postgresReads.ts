// PostgreSQL's read side: a small pool of its own (never the message writer's connections, which a
// few parallel heavy reads used to take all of), whose sessions cancel a statement past the read
// deadline and use no parallel workers (one heavy read keeps to one core of the database server).
// A read that waits for a connection or runs past the deadline fails with `Errors.readTimedOut`. The
// pool is the hub's pool wrapper (pgPool.ts), so a dropped or silent connection is handled as on the
// write side: never reused, and what waits on it fails with a 503 rather than hanging.
import {
  Kysely,
  PostgresDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type PostgresPool,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { Logger } from 'pino';
import { Errors } from '../errors.js';
import { StoreUnavailableError } from './errors.js';
import { createPgPool, PG_APPLICATION_NAME, type PgPool } from './pgPool.js';
import type { ReadSettings, Reads } from './reads.js';
import type { Database } from './schema.js';

/** The server cancels a statement at the deadline; the client gives up a little later if no answer comes. */
const CLIENT_GRACE_MS = 2_000;

/** The read pool: its own connections, with the read deadline as every time limit. */
export function createReadPool(url: string, settings: ReadSettings, logger: Logger): PgPool {
  return createPgPool(
    {
      url,
      max: settings.poolSize,
      applicationName: `${PG_APPLICATION_NAME} reads`,
      sessionOptions: '-c max_parallel_workers_per_gather=0',
      timeouts: { connectMs: settings.timeoutMs, statementMs: settings.timeoutMs, queryMs: settings.timeoutMs + CLIENT_GRACE_MS },
    },
    logger,
  );
}

/** pg's and PostgreSQL's ways of saying a read ran or waited too long. */
function isTimeout(err: unknown): boolean {
  // The pool wraps a connection-level failure; its cause says whether it was a time limit.
  const e = (err instanceof StoreUnavailableError ? err.cause : err) as { code?: unknown; message?: unknown } | null;
  return e?.code === '57014' || e?.message === 'Query read timeout' || e?.message === 'timeout exceeded when trying to connect';
}

/** A connection of the wrapped driver whose failed queries pass through `fail`. */
class DeadlineConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly fail: (err: unknown) => never,
  ) {}
  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inner.executeQuery<R>(query).catch(this.fail);
  }
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Turns a timeout of `driver`'s into the 503 every read deadline answers with. */
class DeadlineDriver implements Driver {
  constructor(
    private readonly driver: Driver,
    private readonly timeoutMs: number,
  ) {}
  private readonly fail = (err: unknown): never => {
    throw isTimeout(err) ? Errors.readTimedOut(this.timeoutMs) : err;
  };
  init(): Promise<void> {
    return this.driver.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new DeadlineConnection(await this.driver.acquireConnection().catch(this.fail), this.fail);
  }
  beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    return Promise.reject(new Error('the read side runs no transactions'));
  }
  commitTransaction(): Promise<void> {
    return Promise.resolve();
  }
  rollbackTransaction(): Promise<void> {
    return Promise.resolve();
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.driver.releaseConnection((connection as DeadlineConnection).inner);
  }
  destroy(): Promise<void> {
    return this.driver.destroy();
  }
}

class DeadlineDialect extends PostgresDialect {
  constructor(
    pool: PgPool,
    private readonly timeoutMs: number,
  ) {
    // The wrapper has the parts of a pg pool Kysely uses (connect, query and release, end).
    super({ pool: pool as unknown as PostgresPool });
  }
  override createDriver(): Driver {
    return new DeadlineDriver(super.createDriver(), this.timeoutMs);
  }
}

export function openPostgresReads(url: string, settings: ReadSettings, logger: Logger): Reads {
  const pool = createReadPool(url, settings, logger);
  const db = new Kysely<Database>({ dialect: new DeadlineDialect(pool, settings.timeoutMs) });
  return { db, runsOn: `a pool of ${settings.poolSize} PostgreSQL connection(s) of its own`, close: () => db.destroy() };
}
