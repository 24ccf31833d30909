// A2A tasks as rows (migration 0014): saved whole on every change, read by id, listed per caller and
// agent newest first with a keyset cursor. Every read is scoped to the task's owner and agent.
import type { Kysely } from 'kysely';
import type { A2aTasksTable, Database } from '../schema.js';

export interface A2aTaskScope {
  ownerId: number;
  agentId: number;
}

export interface A2aTaskListQuery extends A2aTaskScope {
  contextId?: string;
  state?: string;
  /** Only tasks whose status changed after this instant (ISO 8601). */
  statusAfter?: string;
  /** The last task of the previous page: its status time and id. */
  after?: { statusAt: string; id: string };
  limit: number;
}

export function createA2aTasksRepo(db: Kysely<Database>) {
  return {
    /** Inserts or replaces the task; a task of another owner or agent with the same id is left alone (false). */
    async save(row: A2aTasksTable): Promise<boolean> {
      // The row's identity and birth stay; everything else is the task as it is now.
      const { id: _id, owner_id, agent_id, created_at: _createdAt, ...changes } = row;
      const result = await db
        .insertInto('a2a_tasks')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet(changes).where('a2a_tasks.owner_id', '=', owner_id).where('a2a_tasks.agent_id', '=', agent_id))
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async find(id: string, scope: A2aTaskScope): Promise<A2aTasksTable | undefined> {
      return db
        .selectFrom('a2a_tasks')
        .selectAll()
        .where('id', '=', id)
        .where('owner_id', '=', scope.ownerId)
        .where('agent_id', '=', scope.agentId)
        .executeTakeFirst();
    },

    /** The conversation thread of an earlier task in this context, when there is one. */
    async conversationOf(contextId: string, scope: A2aTaskScope): Promise<number | null | undefined> {
      const row = await db
        .selectFrom('a2a_tasks')
        .select('conversation_id')
        .where('owner_id', '=', scope.ownerId)
        .where('agent_id', '=', scope.agentId)
        .where('context_id', '=', contextId)
        .where('conversation_id', 'is not', null)
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row === undefined ? undefined : row.conversation_id === null ? null : Number(row.conversation_id);
    },

    /** How many of `ownerId`'s tasks (to any agent) are in none of `ended` (the owner's index: one range). */
    async countOpen(ownerId: number, ended: readonly string[]): Promise<number> {
      const row = await db
        .selectFrom('a2a_tasks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('owner_id', '=', ownerId)
        .where('state', 'not in', [...ended])
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async list(query: A2aTaskListQuery): Promise<{ rows: A2aTasksTable[]; total: number }> {
      let base = db.selectFrom('a2a_tasks').where('owner_id', '=', query.ownerId).where('agent_id', '=', query.agentId);
      if (query.contextId !== undefined) base = base.where('context_id', '=', query.contextId);
      if (query.state !== undefined) base = base.where('state', '=', query.state);
      if (query.statusAfter !== undefined) base = base.where('status_at', '>', query.statusAfter);
      const total = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      let page = base.selectAll();
      const after = query.after;
      if (after !== undefined) {
        page = page.where((eb) => eb.or([eb('status_at', '<', after.statusAt), eb.and([eb('status_at', '=', after.statusAt), eb('id', '<', after.id)])]));
      }
      const rows = await page.orderBy('status_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
      return { rows, total: Number(total.n) };
    },
  };
}
export type A2aTasksRepo = ReturnType<typeof createA2aTasksRepo>;
