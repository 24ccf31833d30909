// SQLite's read side: a few reader threads (sqliteReaderThread.ts), each with its own read-only
// connection to the database file, behind a Kysely instance. An expensive read then costs the event
// loop only the messages to and from a thread, however many rows it walks. Reads wait in one queue
// for the first free thread; a read still waiting or running at its deadline fails with
// `Errors.readTimedOut`, and the thread running it is replaced (better-sqlite3 cannot interrupt a
// statement: the old thread ends when its statement does, at its low priority).
// An in-memory database cannot be opened by another thread: its reads stay on the main thread.
import { Kysely, SqliteDialect, type CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { Errors } from '../errors.js';
import type { ReadSettings, Reads } from './reads.js';
import type { ReaderReply, ReaderRequest, ReaderThreadSettings } from './sqliteReaderThread.js';
import type { Database } from './schema.js';
import { startThread, type StoreThread } from './threadEntry.js';

interface Job {
  request: ReaderRequest;
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
  timer?: NodeJS.Timeout;
  reader?: Reader;
}

interface Reader {
  thread: StoreThread;
  /** Jobs go only to a thread that has loaded: a job's deadline that passes while it loads then fails the job alone. */
  loaded: boolean;
  job?: Job;
}

export interface ReaderPool {
  query(sql: string, parameters: readonly unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

export function startReaderPool(path: string, settings: ReadSettings): ReaderPool {
  const readers: Reader[] = [];
  const queue: Job[] = [];
  let seq = 0;
  let closed = false;

  const spawn = (): Reader => {
    const reader: Reader = { thread: startThread('sqliteReaderThread', { path } satisfies ReaderThreadSettings), loaded: false };
    void reader.thread.loaded.then(() => {
      reader.loaded = true;
      dispatch();
    });
    // Only requests keep the process alive; an idle pool must not.
    reader.thread.worker.unref();
    reader.thread.worker.on('message', (reply: ReaderReply) => {
      const job = reader.job;
      if (!job || job.request.seq !== reply.seq) return;
      reader.job = undefined;
      settle(job, reply.ok ? { rows: reply.rows } : { err: Object.assign(new Error(reply.message), { code: reply.code }) });
      dispatch();
    });
    // A thread that fails takes its read with it; the next read waiting starts a new one (dispatch).
    reader.thread.worker.on('error', (err) => retire(reader, err));
    reader.thread.worker.on('exit', (code) => retire(reader, new Error(`a SQLite reader thread exited (${code})`)));
    return reader;
  };

  function settle(job: Job, outcome: { rows: unknown[] } | { err: Error }): void {
    clearTimeout(job.timer);
    job.reader = undefined;
    if ('rows' in outcome) job.resolve(outcome.rows);
    else job.reject(outcome.err);
  }

  /** Takes `reader` out of the pool (its running read, if any, fails with `err`); the next read starts another. */
  function retire(reader: Reader, err: Error): void {
    const index = readers.indexOf(reader);
    if (index < 0) return;
    readers.splice(index, 1);
    const job = reader.job;
    reader.job = undefined;
    if (job) settle(job, { err });
    // One that ended before it loaded cannot open the file: the reads waiting fail with why, instead of
    // starting thread after thread until their deadlines.
    if (!reader.loaded) for (const waiting of queue.splice(0)) settle(waiting, { err });
    void reader.thread.stop();
    dispatch();
  }

  function dispatch(): void {
    // Threads are replaced only for reads waiting: one that cannot start fails those reads, it does not respawn in a loop.
    while (!closed && readers.length < settings.poolSize && queue.length > readers.filter((r) => !r.job).length) readers.push(spawn());
    for (const reader of readers) {
      if (reader.job || !reader.loaded) continue;
      const job = queue.shift();
      if (!job) return;
      reader.job = job;
      job.reader = reader;
      reader.thread.worker.postMessage(job.request);
    }
  }

  function timedOut(job: Job): void {
    const waiting = queue.indexOf(job);
    if (waiting >= 0) {
      queue.splice(waiting, 1);
      job.reject(Errors.readTimedOut(settings.timeoutMs));
    } else if (job.reader) {
      const reader = job.reader;
      reader.job = undefined;
      job.reader = undefined;
      job.reject(Errors.readTimedOut(settings.timeoutMs));
      // Its replacement starts now: the thread is sound, only busy, and the next read should not wait for a start.
      if (!closed) readers.push(spawn());
      retire(reader, Errors.readTimedOut(settings.timeoutMs));
    }
  }

  // Started now, not on the first read: loading a thread takes a moment the first read should not wait for.
  for (let i = 0; i < settings.poolSize; i++) readers.push(spawn());

  return {
    query(sql, parameters) {
      if (closed) return Promise.reject(new Error('the store is closed'));
      return new Promise<unknown[]>((resolve, reject) => {
        const job: Job = { request: { seq: ++seq, sql, parameters: [...parameters] }, resolve, reject };
        job.timer = setTimeout(() => timedOut(job), settings.timeoutMs);
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        clearTimeout(job.timer);
        job.reject(new Error('the store is closed'));
      }
      const all = readers.splice(0);
      for (const reader of all) if (reader.job) settle(reader.job, { err: new Error('the store is closed') });
      await Promise.all(all.map((r) => r.thread.stop()));
    },
  };
}

/** A Kysely connection whose every query goes to the reader pool. */
class PooledReadConnection implements DatabaseConnection {
  constructor(private readonly pool: ReaderPool) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return { rows: (await this.pool.query(query.sql, query.parameters)) as R[] };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the read side does not stream');
  }
}

class ReaderPoolDriver implements Driver {
  private readonly connection: PooledReadConnection;
  constructor(private readonly pool: ReaderPool) {
    this.connection = new PooledReadConnection(pool);
  }
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the read side runs no transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.pool.close();
  }
}

/** SQLite's SQL, adapter and introspection; only the driver is the reader pool's. */
class ReaderPoolDialect extends SqliteDialect {
  constructor(private readonly pool: ReaderPool) {
    super({ database: () => Promise.reject(new Error('the read side has no connection of its own')) });
  }
  override createDriver(): Driver {
    return new ReaderPoolDriver(this.pool);
  }
}

/**
 * The read side on the database file at `path`. `mainDb` serves the reads when the database is in
 * memory (`:memory:`), which another thread cannot open: they then run on the event loop, as before.
 */
export function openSqliteReads(path: string, settings: ReadSettings, mainDb: Kysely<Database>): Reads {
  if (path === ':memory:' || path === '')
    return { db: mainDb, runsOn: 'the main thread (an in-memory database cannot be shared with reader threads)', close: async () => {} };
  const pool = startReaderPool(path, settings);
  return {
    db: new Kysely<Database>({ dialect: new ReaderPoolDialect(pool) }),
    runsOn: `${settings.poolSize} reader thread(s)`,
    close: () => pool.close(),
  };
}
