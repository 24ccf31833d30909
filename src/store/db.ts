// Opens the store: embedded SQLite (better-sqlite3, WAL, durable commits) or PostgreSQL (pg pool),
// both behind one Kysely query layer. Each driver also provides the few raw operations Kysely
// cannot express portably: running a migration script atomically and wiping data for dev reset.
import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type PostgresPool,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDatabase,
  type SqliteDialectConfig,
} from 'kysely';
import { pino, type Logger } from 'pino';
import type { DbConfig } from '../config.js';
import {
  postgresBatchWriter,
  postgresDefaultThreads,
  postgresPruneMessages,
  type BatchWriter,
  type DefaultThreadsWriter,
  type MessagePruner,
  type OrderedCommits,
} from './batchWriter.js';
import { createPgPool, type PoolCounts } from './pgPool.js';
import { openSqliteConnection } from './sqliteConnection.js';
import { SQLITE_GROUP_BYTES, SQLITE_GROUP_ROWS, startSqliteWriter } from './sqliteWriter.js';
import type { Database } from './schema.js';

/** The driver-specific half of the migration runner: apply one script and its record atomically. */
export interface MigrationTarget {
  ensureTable(): Promise<void>;
  applied(): Promise<Array<{ name: string; checksum: string }>>;
  /**
   * Runs `sql` and records `name` in one transaction; returns false when another process applied it
   * first. `beforeCommit` runs inside the transaction (tests use it to simulate a crash).
   */
  apply(name: string, checksum: string, sql: string, beforeCommit?: () => void): Promise<boolean>;
}

export interface Store {
  readonly driver: 'sqlite' | 'postgres';
  readonly db: Kysely<Database>;
  readonly migrations: MigrationTarget;
  /** Commits one group of messages and presence changes atomically (the write queue's only path). */
  readonly writeBatch: BatchWriter;
  /**
   * Batches that may be handed to writeBatch before the first commits. Ids must follow posting
   * order: true of SQLite's single writer thread, and of PostgreSQL's pipelined writer (2).
   */
  readonly writeDepth: number;
  /**
   * Rows and bytes that may be in flight at once, across those batches (one batch always may). The
   * SQLite writer commits everything in flight together, so this bounds a group commit too.
   */
  readonly writeBudget: { rows: number; bytes: number };
  /** Default conversation threads, made by the writer (never blocking the event loop on SQLite's lock). */
  readonly ensureDefaultThreads: DefaultThreadsWriter;
  /** Retention: deletes the oldest expired rows of some types, a few at a time (see ops/retention.ts). */
  readonly pruneMessages: MessagePruner;
  /** A trivial query, for readiness checks. */
  ping(): Promise<void>;
  /** PostgreSQL: the pool's connections now (open, idle, callers waiting); SQLite has no pool. */
  connections(): PoolCounts | undefined;
  /** Deletes every row of every table but `migrations` and restarts id sequences (dev reset). */
  truncateAll(): Promise<void>;
  close(): Promise<void>;
}

const MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS migrations (
  name TEXT PRIMARY KEY,
  checksum TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

export interface StoreOptions {
  /** Cluster mode (PostgreSQL): batches of every node commit in id order (see `postgresBatchWriter`). */
  orderedCommits?: OrderedCommits;
  /** Where connection failures are logged (default: nowhere). */
  logger?: Logger;
}

export function openStore(config: DbConfig, options: StoreOptions = {}): Store {
  return config.driver === 'sqlite' ? openSqlite(config.path, config.synchronous ?? 'full') : openPostgres(config, options);
}

/**
 * Transactions on the main connection take SQLite's write lock when they begin. A deferred one that
 * reads first and writes later fails at once with SQLITE_BUSY (its snapshot went stale, so the busy
 * timeout does not apply) whenever the writer thread commits in between, which it does all the time.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.settings);
  }
}

function openSqlite(path: string, synchronous: 'full' | 'normal'): Store {
  const raw = openSqliteConnection(path, { synchronous });
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(raw) }) });
  // Messages are written by their own thread and connection (group commit); the rest uses this one.
  const writer = startSqliteWriter(path, { synchronous });

  const migrations: MigrationTarget = {
    async ensureTable() {
      raw.exec(MIGRATIONS_DDL);
    },
    async applied() {
      return raw.prepare('SELECT name, checksum FROM migrations ORDER BY name').all() as Array<{ name: string; checksum: string }>;
    },
    async apply(name, checksum, sql, beforeCommit) {
      const run = raw.transaction(() => {
        if (raw.prepare('SELECT 1 FROM migrations WHERE name = ?').get(name)) return false;
        raw.exec(sql);
        raw.prepare('INSERT INTO migrations (name, checksum, applied_at) VALUES (?, ?, ?)').run(name, checksum, new Date().toISOString());
        beforeCommit?.();
        return true;
      });
      // IMMEDIATE takes the write lock up front, so two processes cannot both apply the same file.
      return run.immediate();
    },
  };

  return {
    driver: 'sqlite',
    db,
    migrations,
    writeBatch: (batch) => writer.write(batch),
    ensureDefaultThreads: (requests) => writer.defaultThreads(requests),
    pruneMessages: (request) => writer.prune(request),
    // Many small batches in flight: the thread commits all that waited as one group (up to its bounds),
    // and the next group fills while this one waits for the disk.
    writeDepth: 64,
    writeBudget: { rows: 2 * SQLITE_GROUP_ROWS, bytes: 2 * SQLITE_GROUP_BYTES },
    async ping() {
      raw.prepare('SELECT 1').get();
    },
    connections: () => undefined,
    async truncateAll() {
      const tables = raw
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('migrations', 'bus_journal')")
        .all() as Array<{
        name: string;
      }>;
      raw.transaction(() => {
        raw.pragma('defer_foreign_keys = ON');
        for (const { name } of tables) raw.exec(`DELETE FROM "${name}"`);
        if (raw.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get())
          raw.exec("DELETE FROM sqlite_sequence WHERE name <> 'bus_journal'");
      })();
    },
    async close() {
      await writer.close();
      await db.destroy();
    },
  };
}

/**
 * Kysely prepares every query anew; SQLite's parse and plan was a sixth of the CPU of an API
 * request. Statements are reused per SQL text (parameters are bound per call). Kysely runs one query
 * at a time on this connection, so a cached statement is never in use twice.
 */
function withStatementCache(raw: BetterSqlite3.Database, capacity = 500): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = raw.prepare(sql);
        if (cache.size >= capacity) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}

/** A migration may rewrite a large table: its statements get a day, not the pool's reply limit. */
const MIGRATION_TIMEOUT_MS = 24 * 3600 * 1000;

function openPostgres(config: Extract<DbConfig, { driver: 'postgres' }>, options: StoreOptions): Store {
  const pool = createPgPool({ url: config.url, max: 10, timeouts: config.timeouts }, options.logger ?? pino({ enabled: false }));
  // Kysely streams through a cursor only when its dialect is given one (none is): it calls query(text, values) only.
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: pool as unknown as PostgresPool }) });
  const MIGRATION_LOCK = 727_101;

  const migrations: MigrationTarget = {
    async ensureTable() {
      await pool.query(MIGRATIONS_DDL);
    },
    async applied() {
      const result = await pool.query<{ name: string; checksum: string }>('SELECT name, checksum FROM migrations ORDER BY name');
      return result.rows;
    },
    async apply(name, checksum, sql, beforeCommit) {
      const client = await pool.connect();
      try {
        // No statement limit inside a migration (SET LOCAL ends with the transaction).
        await client.query('BEGIN; SET LOCAL statement_timeout = 0');
        // Serialises concurrent hubs migrating one database; released at COMMIT/ROLLBACK.
        await client.query({ text: 'SELECT pg_advisory_xact_lock($1)', query_timeout: MIGRATION_TIMEOUT_MS }, [MIGRATION_LOCK]);
        const done = await client.query('SELECT 1 FROM migrations WHERE name = $1', [name]);
        if (done.rowCount) {
          await client.query('ROLLBACK');
          return false;
        }
        await client.query({ text: sql, query_timeout: MIGRATION_TIMEOUT_MS });
        await client.query('INSERT INTO migrations (name, checksum, applied_at) VALUES ($1, $2, $3)', [name, checksum, new Date().toISOString()]);
        beforeCommit?.();
        await client.query('COMMIT');
        return true;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };

  return {
    driver: 'postgres',
    db,
    migrations,
    writeBatch: postgresBatchWriter(pool, { ordered: options.orderedCommits }),
    ensureDefaultThreads: postgresDefaultThreads(pool),
    pruneMessages: postgresPruneMessages(pool),
    writeDepth: 2,
    writeBudget: { rows: 20_000, bytes: 16 * 1024 * 1024 },
    async ping() {
      await pool.query('SELECT 1');
    },
    connections: () => pool.counts(),
    async truncateAll() {
      const result = await pool.query<{ tablename: string }>(
        // The bus journal stays: nodes poll it by id, and its ids must not restart under them.
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT IN ('migrations', 'bus_journal')",
      );
      if (result.rows.length === 0) return;
      const list = result.rows.map((r) => `"${r.tablename}"`).join(', ');
      await pool.query(`TRUNCATE ${list} RESTART IDENTITY CASCADE`);
      // The commit order's one row restarts with the ids (cluster mode reads it in every batch).
      await pool.query('INSERT INTO cluster_commit_order (id, last_id) VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET last_id = 0');
    },
    async close() {
      // Kysely ends the pool it was given.
      await db.destroy();
    },
  };
}
