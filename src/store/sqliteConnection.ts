// Opening a connection to the hub's SQLite file, the same way on the main thread and in the
// writer thread: both must agree on durability and locking.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export function openSqliteConnection(path: string): BetterSqlite3.Database {
  mkdirSync(dirname(path), { recursive: true });
  const raw = new BetterSqlite3(path);
  raw.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before the hub acknowledges it; group commit pays for the fsync.
  raw.pragma('synchronous = FULL');
  raw.pragma('foreign_keys = ON');
  // A write waits this long for the other connection's transaction instead of failing at once.
  raw.pragma('busy_timeout = 5000');
  return raw;
}
