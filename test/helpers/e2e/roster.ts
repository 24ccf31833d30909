// A large roster for the dashboard's scale test: agents inserted in bulk straight into the store (no
// API round trip per agent), a share of them marked online as a busy hub's store would hold them.
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';

/** Rows per INSERT: SQLite takes at most 32,766 bound values, and a user row binds 12. */
const ROWS_PER_INSERT = 2000;

export interface BulkRoster {
  /** Usernames are `${prefix}-${i}`, i from 0. */
  prefix: string;
  count: number;
  /** Every `onlineEvery`-th agent is ONLINE (2: half of them). */
  onlineEvery: number;
  kinds: readonly string[];
}

export async function insertAgents(db: Kysely<Database>, roster: BulkRoster): Promise<void> {
  const now = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < roster.count; start += ROWS_PER_INSERT) {
      const rows = [];
      for (let i = start; i < Math.min(roster.count, start + ROWS_PER_INSERT); i++) {
        const online = i % roster.onlineEvery === 0;
        rows.push({
          username: `${roster.prefix}-${i}`,
          role: 'AGENT',
          actor_type: 'SYSTEM',
          agent_kind: roster.kinds[i % roster.kinds.length]!,
          runtime_kind: 'websocket',
          description: null,
          skills: null,
          status: online ? 'ONLINE' : 'OFFLINE',
          online: online ? 1 : 0,
          last_seen_at: now,
          last_report: online ? 'websocket_connected' : 'websocket_disconnected',
          created_at: now,
          updated_at: now,
        });
      }
      await trx.insertInto('users').values(rows).execute();
    }
  });
}
