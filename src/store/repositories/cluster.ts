// What cluster mode reads from the store: the commit order, the rows committed after the last one a
// node handed over (what the bus did not bring), and the agents the store shows online (the leader
// checks each is still held by a live node), and the bus journal (the bus messages every node must hear).
import type { Kysely } from 'kysely';
import type { PresenceRow } from '../batchWriter.js';
import type { Database, MessageRow } from '../schema.js';

/** A bus message as the journal keeps it. */
export interface JournalRow {
  id: number;
  node: string;
  kind: string;
  body: string;
}

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
    /**
     * Agents whose row changed at or after `since` (ISO time), as a PRESENCE frame is built from them:
     * what a node missed while Redis was away. One pass over the agents (users_role_idx), once per outage.
     */
    async agentPresenceSince(since: string): Promise<PresenceRow[]> {
      const rows = await db
        .selectFrom('users')
        .select(['id', 'username', 'role', 'status', 'online', 'last_seen_at', 'last_report'])
        .where('role', '=', 'AGENT')
        .where('updated_at', '>=', since)
        .orderBy('id')
        .execute();
      return rows.map((r) => ({ ...r, id: Number(r.id), online: Number(r.online) }));
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
    /** Keeps a bus message; returns its id (ids grow in the order rows are written). */
    async journal(entry: { node: string; kind: string; body: string; at: number }): Promise<number> {
      const row = await db
        .insertInto('bus_journal')
        .values({ node: entry.node, kind: entry.kind, body: entry.body, created_at: entry.at })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    /** Journal rows with an id above `afterId`, oldest first, at most `limit`. */
    async journalAfter(afterId: number, limit: number): Promise<JournalRow[]> {
      const rows = await db.selectFrom('bus_journal').select(['id', 'node', 'kind', 'body']).where('id', '>', afterId).orderBy('id').limit(limit).execute();
      return rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
    /** The newest journal id (0 when it is empty): a node starting up hears what comes after it. */
    async journalNewest(): Promise<number> {
      const row = await db
        .selectFrom('bus_journal')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },
    /** Drops journal rows written before `before` (ms since the epoch); returns how many. */
    async pruneJournal(before: number): Promise<number> {
      const result = await db.deleteFrom('bus_journal').where('created_at', '<', before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type ClusterRepo = ReturnType<typeof createClusterRepo>;
