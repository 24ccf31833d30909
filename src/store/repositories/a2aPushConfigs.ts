// A2A push-notification configs as rows (migration 0015), scoped to the task's caller and agent.
import type { Kysely } from 'kysely';
import type { A2aPushConfigsTable, Database } from '../schema.js';
import type { A2aTaskScope } from './a2aTasks.js';

export function createA2aPushConfigsRepo(db: Kysely<Database>) {
  const scoped = (taskId: string, scope: A2aTaskScope) =>
    db.selectFrom('a2a_push_configs').where('task_id', '=', taskId).where('owner_id', '=', scope.ownerId).where('agent_id', '=', scope.agentId);
  return {
    /** Inserts or replaces (same task and id) a config. */
    async save(row: A2aPushConfigsTable): Promise<void> {
      await db
        .insertInto('a2a_push_configs')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['task_id', 'id'])
            .doUpdateSet({ config: row.config, wire_version: row.wire_version })
            .where('a2a_push_configs.owner_id', '=', row.owner_id)
            .where('a2a_push_configs.agent_id', '=', row.agent_id),
        )
        .execute();
    },
    list(taskId: string, scope: A2aTaskScope): Promise<A2aPushConfigsTable[]> {
      return scoped(taskId, scope).selectAll().orderBy('created_at').orderBy('id').execute();
    },
    /** Configs stored before they were sealed (plain JSON: not `v1.…`). */
    unsealed(): Promise<Array<Pick<A2aPushConfigsTable, 'task_id' | 'id' | 'config'>>> {
      return db.selectFrom('a2a_push_configs').select(['task_id', 'id', 'config']).where('config', 'not like', 'v1.%').execute();
    },
    /** Replaces a config's stored text if it is still `row.config`; whether it did. */
    async reseal(row: Pick<A2aPushConfigsTable, 'task_id' | 'id' | 'config'>, config: string): Promise<boolean> {
      const result = await db
        .updateTable('a2a_push_configs')
        .set({ config })
        .where('task_id', '=', row.task_id)
        .where('id', '=', row.id)
        .where('config', '=', row.config)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(taskId: string, scope: A2aTaskScope, id?: string): Promise<void> {
      let query = db.deleteFrom('a2a_push_configs').where('task_id', '=', taskId).where('owner_id', '=', scope.ownerId).where('agent_id', '=', scope.agentId);
      if (id !== undefined) query = query.where('id', '=', id);
      await query.execute();
    },
  };
}
export type A2aPushConfigsRepo = ReturnType<typeof createA2aPushConfigsRepo>;
