// What cluster mode reads from the store: the commit order, the rows committed after the last one a
// node handed over (what the bus did not bring), and the agents the store shows online (the leader
// checks each is still held by a live node).
import type { Kysely } from 'kysely';
import type { Database, MessageRow } from '../schema.js';

export function createClusterRepo(db: Kysely<Database>) {
  return {
    /** The newest message id the commits of every node have reached. */
    async lastCommitted(): Promise<number> {
      const row = await db.selectFrom('cluster_commit_order').select('last_id').where('id', '=', 1).executeTakeFirst();
      return Number(row?.last_id ?? 0);
    },
    /**
     * Stored rows with an id above `afterId`, oldest first, at most `limit`: one range scan of the
     * primary key. Commits are in id order, so the rows it returns have no committed id missing
     * between them.
     */
    async catchUp(afterId: number, limit: number): Promise<MessageRow[]> {
      return db.selectFrom('messages').selectAll().where('id', '>', afterId).orderBy('id').limit(limit).execute();
    },
    /** Agents the store shows ONLINE whose last presence change is older than `olderThanSeq`. */
    async onlineAgents(olderThanSeq: number): Promise<number[]> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'AGENT')
        .where('online', '=', 1)
        .where('presence_seq', '<', olderThanSeq)
        .execute();
      return rows.map((r) => r.id);
    },
  };
}
export type ClusterRepo = ReturnType<typeof createClusterRepo>;
