// The read side of the store, for the expensive reads (the dashboard's message list and search, its
// counts and charts): a query layer of its own, so these reads never run on the event loop (SQLite:
// reader threads, sqliteReaders.ts) nor on the message writer's connections (PostgreSQL: a small pool
// of its own, postgresReads.ts), and each is bounded by a deadline. A read past it fails with
// `Errors.readTimedOut` (503 with Retry-After), never a 500.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface ReadSettings {
  /** Reads running at once (reader threads on SQLite, connections on PostgreSQL): DB_READ_POOL_SIZE. */
  poolSize: number;
  /** Longest a read may wait and run: DB_READ_TIMEOUT. */
  timeoutMs: number;
}

export interface Reads {
  /** Queries on this instance run on the read side; it refuses transactions (it only reads). */
  readonly db: Kysely<Database>;
  /** Where the reads run, for the startup log. */
  readonly runsOn: string;
  close(): Promise<void>;
}
