// Remote A2A agents as rows (migration 0017): one per agent registered by its card URL, deleted with
// the agent's user row.
import type { Kysely, Transaction } from 'kysely';
import type { A2aRemoteAgentsTable, Database } from '../schema.js';

export function createA2aRemoteAgentsRepo(db: Kysely<Database>) {
  return {
    async insert(row: A2aRemoteAgentsTable, trx?: Transaction<Database>): Promise<void> {
      await (trx ?? db).insertInto('a2a_remote_agents').values(row).execute();
    },
    find(userId: number): Promise<A2aRemoteAgentsTable | undefined> {
      return db.selectFrom('a2a_remote_agents').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    /** Every remote agent, with its user's name and role (the proxies the leader runs). */
    list(): Promise<Array<A2aRemoteAgentsTable & { username: string; role: string }>> {
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
  };
}
export type A2aRemoteAgentsRepo = ReturnType<typeof createA2aRemoteAgentsRepo>;
