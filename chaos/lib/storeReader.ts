// Reads the hub's messages table directly (SQLite file or PostgreSQL database), so a check compares
// what clients were told (ACKs) with what is really stored, without going through the hub.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ScratchStore } from '../../bench/lib/stores.js';

export interface StoredRow {
  id: number;
  sender_id: number;
  local_id: string | null;
  conversation_id: number | null;
  target_id: number | null;
}

/** Rows whose local_id starts with `prefix` (a run's tag), ordered by id. */
export async function storedByLocalId(store: ScratchStore, prefix: string): Promise<StoredRow[]> {
  const sql = 'SELECT id, sender_id, local_id, conversation_id, target_id FROM messages WHERE local_id LIKE $1 ORDER BY id';
  return query(store, sql, [`${prefix.replace(/[%_\\]/g, '\\$&')}%`]);
}

/** Rows whose content contains `marker`. */
export async function storedByContent(store: ScratchStore, marker: string): Promise<StoredRow[]> {
  return query(store, 'SELECT id, sender_id, local_id, conversation_id, target_id FROM messages WHERE content LIKE $1 ORDER BY id', [
    `%${marker.replace(/[%_\\]/g, '\\$&')}%`,
  ]);
}

async function query(store: ScratchStore, sql: string, params: string[]): Promise<StoredRow[]> {
  if (store.env['DB_DRIVER'] === 'sqlite') {
    const db = new Database(store.env['DB_PATH']!, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql.replace(/\$\d/g, '?').replace(/LIKE \?/g, "LIKE ? ESCAPE '\\'")).all(...params) as StoredRow[];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: store.env['DATABASE_URL'] });
  await client.connect();
  try {
    const res = await client.query(sql.replace(/LIKE \$(\d)/g, "LIKE $$$1 ESCAPE '\\'"), params);
    return res.rows.map((r: Record<string, unknown>) => ({
      id: Number(r['id']),
      sender_id: Number(r['sender_id']),
      local_id: (r['local_id'] as string | null) ?? null,
      conversation_id: r['conversation_id'] === null ? null : Number(r['conversation_id']),
      target_id: r['target_id'] === null ? null : Number(r['target_id']),
    }));
  } finally {
    await client.end();
  }
}

/** The stored messages of one sender and type (their payload as stored: JSON text, and stream id), ordered by id. */
export async function storedPayloads(
  store: ScratchStore,
  senderId: number,
  type: string,
): Promise<Array<{ id: number; payload: string; stream_id: string | null }>> {
  return rows(store, 'SELECT id, payload, stream_id FROM messages WHERE sender_id = $1 AND type = $2 ORDER BY id', [senderId, type], (r) => ({
    id: Number(r['id']),
    payload: String(r['payload']),
    stream_id: r['stream_id'] === null ? null : String(r['stream_id']),
  }));
}

/** A remote A2A agent's carried mark (a2a_remote_agents.carried_id). */
export async function carriedMark(store: ScratchStore, agentId: number): Promise<number> {
  const [row] = await rows(store, 'SELECT carried_id FROM a2a_remote_agents WHERE user_id = $1', [agentId], (r) => Number(r['carried_id']));
  return row ?? 0;
}

async function rows<T>(store: ScratchStore, sql: string, params: unknown[], map: (row: Record<string, unknown>) => T): Promise<T[]> {
  if (store.env['DB_DRIVER'] === 'sqlite') {
    const db = new Database(store.env['DB_PATH']!, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare(sql.replace(/\$\d/g, '?')).all(...params) as Array<Record<string, unknown>>).map(map);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: store.env['DATABASE_URL'] });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows.map(map);
  } finally {
    await client.end();
  }
}
