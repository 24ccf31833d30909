// Users table: humans and machines, with their presence columns.
import type { Kysely } from 'kysely';
import type { Database, NewUser, UserPatch, UserRow } from '../schema.js';
import { containsIgnoreCase } from './like.js';

export interface UserQuery {
  roles?: readonly string[];
  excludeRole?: string;
  q?: string;
  offset: number;
  limit: number;
}

export function createUsersRepo(db: Kysely<Database>) {
  function filtered(query: Omit<UserQuery, 'offset' | 'limit'>) {
    let builder = db.selectFrom('users');
    if (query.roles && query.roles.length > 0) builder = builder.where('role', 'in', [...query.roles]);
    if (query.excludeRole) builder = builder.where('role', '<>', query.excludeRole);
    if (query.q) builder = builder.where(({ ref }) => containsIgnoreCase(ref('username'), query.q!));
    return builder;
  }

  return {
    async insert(user: NewUser, trx: Kysely<Database> = db): Promise<UserRow> {
      return trx.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
    },
    async findById(id: number): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async findByUsername(username: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
    },
    async list(query: UserQuery): Promise<{ rows: UserRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        filtered(query).selectAll().orderBy('id').limit(query.limit).offset(query.offset).execute(),
        filtered(query)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async update(id: number, patch: UserPatch): Promise<UserRow | undefined> {
      return db.updateTable('users').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
    },
    /** Marks every machine offline (after a restart no socket survives) except the in-process ones. */
    async setMachinesOffline(now: string, exceptIds: readonly number[]): Promise<void> {
      let builder = db.updateTable('users').set({ status: 'OFFLINE', online: 0, updated_at: now }).where('actor_type', '=', 'SYSTEM').where('online', '=', 1);
      if (exceptIds.length > 0) builder = builder.where('id', 'not in', [...exceptIds]);
      await builder.execute();
    },
    async delete(id: number, trx: Kysely<Database> = db): Promise<boolean> {
      const result = await trx.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /**
     * The admins' ids, with their rows locked until `trx` ends, so a change that could leave the hub
     * without an admin counts what concurrent changes left: PostgreSQL makes a second such
     * transaction wait here and re-checks `role` once the first commits; on SQLite the transaction
     * holds the one write lock from this statement on. A no-op update, as SQLite has no FOR UPDATE.
     */
    async lockAdmins(trx: Kysely<Database>): Promise<number[]> {
      const rows = await trx
        .updateTable('users')
        .set((eb) => ({ role: eb.ref('role') }))
        .where('role', '=', 'ADMIN')
        .returning('id')
        .execute();
      return rows.map((r) => Number(r.id));
    },
  };
}
export type UsersRepo = ReturnType<typeof createUsersRepo>;
