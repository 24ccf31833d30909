// The embedded store's transactions on the main connection take SQLite's write lock when they begin,
// so one that reads and then writes cannot fail because the writer thread committed in between.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';

let dir: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('holds the write lock from the start of a transaction: another connection cannot commit in between', async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-tx-'));
  const path = join(dir, 'hub.db');
  store = openStore({ driver: 'sqlite', path });
  await sql`CREATE TABLE t (n INTEGER)`.execute(store.db);
  const other = new Database(path, { timeout: 0 });
  try {
    await store.db.transaction().execute(async (trx) => {
      await sql`SELECT count(*) FROM t`.execute(trx);
      // A deferred transaction would let this commit, then fail its own write with SQLITE_BUSY.
      expect(() => other.prepare('INSERT INTO t VALUES (1)').run()).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
      await sql`INSERT INTO t VALUES (2)`.execute(trx);
    });
    expect(other.prepare('SELECT n FROM t').all()).toEqual([{ n: 2 }]);
  } finally {
    other.close();
  }
});
