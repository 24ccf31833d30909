// PostgreSQL's read side: a small pool of its own (never the message writer's connections, which a
// few parallel heavy reads used to take all of), whose sessions cancel a statement past the read
// deadline and use no parallel workers (one heavy read keeps to one core of the database server).
// A read that waits for a connection or runs past the deadline fails with `Errors.readTimedOut`.
import { Kysely, PostgresDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import pg from 'pg';
import { Errors } from '../errors.js';
import { pgTypes } from './pgPool.js';
import type { ReadSettings, Reads } from './reads.js';
import type { Database } from './schema.js';

/** The server cancels a statement at the deadline; the client gives up a little later if no answer comes. */
const CLIENT_GRACE_MS = 2_000;

/**
 * The read pool's connections. Every client has an `error` listener for its whole life (pg-pool's
 * own listener covers idle clients only): a connection dropped while a read holds it fails that read,
 * never the process.
 */
export function createReadPool(url: string, settings: ReadSettings): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.poolSize,
    application_name: 'agent-hub reads',
    connectionTimeoutMillis: settings.timeoutMs,
    statement_timeout: settings.timeoutMs,
    query_timeout: settings.timeoutMs + CLIENT_GRACE_MS,
    options: '-c max_parallel_workers_per_gather=0',
    types: pgTypes,
  });
  // The read that held a dropped connection fails with its own error; the pool opens a new one next time.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** pg's and PostgreSQL's ways of saying a read ran or waited too long. */
function isTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
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
    pool: pg.Pool,
    private readonly timeoutMs: number,
  ) {
    super({ pool });
  }
  override createDriver(): Driver {
    return new DeadlineDriver(super.createDriver(), this.timeoutMs);
  }
}

export function openPostgresReads(url: string, settings: ReadSettings): Reads {
  const pool = createReadPool(url, settings);
  const db = new Kysely<Database>({ dialect: new DeadlineDialect(pool, settings.timeoutMs) });
  return { db, runsOn: `a pool of ${settings.poolSize} PostgreSQL connection(s) of its own`, close: () => db.destroy() };
}
