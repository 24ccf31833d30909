// Opening a connection to the hub's SQLite file, the same way on the main thread and in the
// writer thread: both must agree on durability and locking.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/**
 * FULL: a commit is on disk before the hub acknowledges it (group commit pays for the fsync).
 * NORMAL (WAL): the WAL is synced only at checkpoints; a process crash loses nothing, a power loss
 * or OS crash may lose the last commits before the checkpoint, acknowledged or not.
 */
export type SqliteSynchronous = 'full' | 'normal';

export interface SqliteConnectionOptions {
  synchronous?: SqliteSynchronous;
  /** How long a write waits for another connection's lock before SQLITE_BUSY (default 5,000 ms). */
  busyTimeoutMs?: number;
}

export function openSqliteConnection(path: string, options: SqliteConnectionOptions = {}): BetterSqlite3.Database {
  mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
  raw.pragma('foreign_keys = ON');
  // A write waits this long for the other connection's transaction instead of failing at once.
  raw.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  // Checkpoints run in their own thread beside the writer (sqliteCheckpointThread.ts); an automatic
  // one would run inside a commit instead, which every ACK behind it would wait for.
  raw.pragma('wal_autocheckpoint = 0');
  return raw;
}
