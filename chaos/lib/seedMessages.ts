// Fills a hub's messages table straight through its store (not through the hub): `count` dashboard
// rows from one agent, broadcast, spread over the last 50 minutes so every chart window holds them
// all. Nine in ten are SYSTEM_LOG (levels in turn), one in ten a CODE_REVIEW with a verdict and
// findings. Written by the database itself (INSERT … SELECT over a generated series) in transactions
// of 100,000 rows, so 800,000 rows take seconds and the hub's writer waits for none of them long.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ScratchStore } from '../../bench/lib/stores.js';

export interface SeedSender {
  id: number;
  username: string;
}

const CHUNK = 100_000;
/** Searchable words every row carries, so a search (`q`) matches some rows and misses others. */
export const SEED_WORD = 'seeded';

const SQLITE_INSERT = `
WITH RECURSIVE g(x) AS (SELECT ? UNION ALL SELECT x + 1 FROM g WHERE x < ?)
INSERT INTO messages (type, sender_id, sender_name, sender_role, target_id, payload, level, content, created_at)
SELECT
  CASE WHEN x % 10 = 0 THEN 'CODE_REVIEW' ELSE 'SYSTEM_LOG' END,
  ?, ?, 'AGENT', NULL,
  CASE WHEN x % 10 = 0
    THEN json_object('verdict', CASE x % 3 WHEN 0 THEN 'approve' WHEN 1 THEN 'comment' ELSE 'reject' END, 'findings', json_array('f1', 'f2'), 'summary', 'review ' || x)
    ELSE json_object('level', CASE x % 4 WHEN 0 THEN 'INFO' WHEN 1 THEN 'WARN' WHEN 2 THEN 'ERROR' ELSE 'DEBUG' END, 'content', '${SEED_WORD} row ' || x || ' of the read-stall check')
  END,
  CASE WHEN x % 10 = 0 THEN NULL ELSE CASE x % 4 WHEN 0 THEN 'INFO' WHEN 1 THEN 'WARN' WHEN 2 THEN 'ERROR' ELSE 'DEBUG' END END,
  '${SEED_WORD} row ' || x || ' of the read-stall check',
  strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || (x % 3000) || ' seconds')
FROM g`;

const POSTGRES_INSERT = `
INSERT INTO messages (type, sender_id, sender_name, sender_role, target_id, payload, level, content, created_at)
SELECT
  CASE WHEN x % 10 = 0 THEN 'CODE_REVIEW' ELSE 'SYSTEM_LOG' END,
  $3, $4, 'AGENT', NULL,
  CASE WHEN x % 10 = 0
    THEN json_build_object('verdict', (ARRAY['approve','comment','reject'])[1 + x % 3], 'findings', json_build_array('f1', 'f2'), 'summary', 'review ' || x)::text
    ELSE json_build_object('level', (ARRAY['INFO','WARN','ERROR','DEBUG'])[1 + x % 4], 'content', '${SEED_WORD} row ' || x || ' of the read-stall check')::text
  END,
  CASE WHEN x % 10 = 0 THEN NULL ELSE (ARRAY['INFO','WARN','ERROR','DEBUG'])[1 + x % 4] END,
  '${SEED_WORD} row ' || x || ' of the read-stall check',
  to_char((now() - (x % 3000) * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
FROM generate_series($1::bigint, $2::bigint) AS x`;

/** Inserts `count` rows from `sender`; `progress` hears the rows written so far. */
export async function seedMessages(store: ScratchStore, sender: SeedSender, count: number, progress?: (done: number) => void): Promise<void> {
  if (store.env['DB_DRIVER'] === 'sqlite') {
    const db = new Database(store.env['DB_PATH']!, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      const insert = db.prepare(SQLITE_INSERT);
      for (let from = 1; from <= count; from += CHUNK) {
        const to = Math.min(count, from + CHUNK - 1);
        db.transaction(() => insert.run(from, to, sender.id, sender.username)).immediate();
        progress?.(to);
      }
      // The hub checkpoints on its own schedule; a WAL of the whole seed would slow every read until then.
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: store.env['DATABASE_URL'] });
  await client.connect();
  try {
    for (let from = 1; from <= count; from += CHUNK) {
      const to = Math.min(count, from + CHUNK - 1);
      await client.query(POSTGRES_INSERT, [from, to, sender.id, sender.username]);
      progress?.(to);
    }
    // Fresh statistics, as autovacuum would give a table that grew this much.
    await client.query('ANALYZE messages');
  } finally {
    await client.end();
  }
}
