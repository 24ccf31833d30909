// Remote A2A agents as rows (migration 0017): one per agent registered by its card URL, deleted with
// the agent's user row; `carried_id` (0019) marks the last chat carried to it.
import type { Insertable, Kysely, Selectable, Transaction } from 'kysely';
import type { A2aRemoteAgentsTable, Database, MessageRow } from '../schema.js';

type Row = Selectable<A2aRemoteAgentsTable>;

export function createA2aRemoteAgentsRepo(db: Kysely<Database>) {
  return {
    async insert(row: Insertable<A2aRemoteAgentsTable>, trx?: Transaction<Database>): Promise<void> {
      await (trx ?? db).insertInto('a2a_remote_agents').values(row).execute();
    },
    find(userId: number): Promise<Row | undefined> {
      return db.selectFrom('a2a_remote_agents').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    /** Every remote agent, with its user's name and role (the proxies the leader runs). */
    list(): Promise<Array<Row & { username: string; role: string }>> {
      return db
        .selectFrom('a2a_remote_agents')
        .innerJoin('users', 'users.id', 'a2a_remote_agents.user_id')
        .selectAll('a2a_remote_agents')
        .select(['users.username', 'users.role'])
        .orderBy('a2a_remote_agents.user_id')
        .execute();
    },
    async updateCard(userId: number, card: string, updatedAt: string): Promise<void> {
      await db.updateTable('a2a_remote_agents').set({ card, updated_at: updatedAt }).where('user_id', '=', userId).execute();
    },
    /** Moves the carried mark forward (never back: a late write of an older mark changes nothing). */
    async setCarried(userId: number, id: number): Promise<void> {
      await db.updateTable('a2a_remote_agents').set({ carried_id: id }).where('user_id', '=', userId).where('carried_id', '<', id).execute();
    },
    /** Which of `localIds` the agent's stored messages carry (its answers, stored under a local_id of their chat). */
    async storedLocalIds(agentId: number, localIds: readonly string[]): Promise<Set<string>> {
      if (localIds.length === 0) return new Set();
      const rows = await db.selectFrom('messages').select('local_id').where('sender_id', '=', agentId).where('local_id', 'in', localIds).execute();
      return new Set(rows.map((r) => r.local_id!));
    },
    /**
     * The back-log: chats to the agent (from anyone else) with an id above `afterId`, stored at or
     * after `since`; the newest `limit` of them, oldest first.
     */
    async backlog(agentId: number, afterId: number, since: string, limit: number): Promise<MessageRow[]> {
      const rows = await db
        .selectFrom('messages')
        .selectAll()
        .where('type', '=', 'CHAT')
        .where('id', '>', afterId)
        .where('target_id', '=', agentId)
        .where('sender_id', '<>', agentId)
        .where('created_at', '>=', since)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.reverse();
    },
  };
}
export type A2aRemoteAgentsRepo = ReturnType<typeof createA2aRemoteAgentsRepo>;
