// The older dashboards' ops inventory: SSH keys, the nodes that name them, and ops task records.
// Plain rows; the service decides what a change may do (a key in use stays, a name stays unique).
import type { Insertable, Kysely } from 'kysely';
import type { Database, InfraNodeRow, InfraNodesTable, OpsTaskRow, OpsTasksTable, SshKeyRow, SshKeysTable } from '../schema.js';

export type NewSshKey = Omit<Insertable<SshKeysTable>, 'id'>;
export type SshKeyChange = Pick<SshKeyRow, 'name' | 'public_key' | 'fingerprint' | 'updated_at'> & Partial<Pick<SshKeyRow, 'private_key_cipher'>>;
export type NewInfraNode = Omit<Insertable<InfraNodesTable>, 'id'>;
export type InfraNodeChange = Omit<NewInfraNode, 'created_at'>;
export type NewOpsTask = Omit<Insertable<OpsTasksTable>, 'id'>;

export function createOpsInventoryRepo(db: Kysely<Database>) {
  return {
    /** Newest first, as the older hub listed them. */
    listKeys(): Promise<SshKeyRow[]> {
      return db.selectFrom('ssh_keys').selectAll().orderBy('id', 'desc').execute();
    },

    findKey(id: number): Promise<SshKeyRow | undefined> {
      return db.selectFrom('ssh_keys').selectAll().where('id', '=', id).executeTakeFirst();
    },

    insertKey(key: NewSshKey): Promise<SshKeyRow> {
      return db.insertInto('ssh_keys').values(key).returningAll().executeTakeFirstOrThrow();
    },

    updateKey(id: number, change: SshKeyChange): Promise<SshKeyRow | undefined> {
      return db.updateTable('ssh_keys').set(change).where('id', '=', id).returningAll().executeTakeFirst();
    },

    /**
     * Deletes the key unless a node uses it, in one transaction: `deleted`, or not with the name of a
     * node that still uses it (`usedBy`), or not because there is no such key.
     */
    deleteKeyUnlessUsed(id: number): Promise<{ deleted: true } | { deleted: false; usedBy?: string }> {
      return db.transaction().execute(async (trx) => {
        const user = await trx.selectFrom('infra_nodes').select('name').where('ssh_key_id', '=', id).orderBy('id').limit(1).executeTakeFirst();
        if (user) return { deleted: false, usedBy: user.name };
        const gone = await trx.deleteFrom('ssh_keys').where('id', '=', id).executeTakeFirst();
        return gone.numDeletedRows > 0n ? { deleted: true } : { deleted: false };
      });
    },

    listNodes(): Promise<InfraNodeRow[]> {
      return db.selectFrom('infra_nodes').selectAll().orderBy('id', 'desc').execute();
    },

    findNode(id: number): Promise<InfraNodeRow | undefined> {
      return db.selectFrom('infra_nodes').selectAll().where('id', '=', id).executeTakeFirst();
    },

    insertNode(node: NewInfraNode): Promise<InfraNodeRow> {
      return db.insertInto('infra_nodes').values(node).returningAll().executeTakeFirstOrThrow();
    },

    updateNode(id: number, change: InfraNodeChange): Promise<InfraNodeRow | undefined> {
      return db.updateTable('infra_nodes').set(change).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async deleteNode(id: number): Promise<boolean> {
      const gone = await db.deleteFrom('infra_nodes').where('id', '=', id).executeTakeFirst();
      return gone.numDeletedRows > 0n;
    },

    async counts(): Promise<{ keys: number; nodes: number }> {
      const [keys, nodes] = await Promise.all([
        db
          .selectFrom('ssh_keys')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
        db
          .selectFrom('infra_nodes')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { keys: Number(keys.n), nodes: Number(nodes.n) };
    },

    insertTask(task: NewOpsTask): Promise<OpsTaskRow> {
      return db.insertInto('ops_tasks').values(task).returningAll().executeTakeFirstOrThrow();
    },

    /** The newest `limit` task records, newest first. */
    recentTasks(limit: number): Promise<OpsTaskRow[]> {
      return db.selectFrom('ops_tasks').selectAll().orderBy('id', 'desc').limit(limit).execute();
    },
  };
}
export type OpsInventoryRepo = ReturnType<typeof createOpsInventoryRepo>;
