// Users table: humans and machines, with their presence columns.
import type { Kysely } from 'kysely';
import { MachineRoles } from '../../protocol/roles.js';
import type { Database, MachineCredentialRow, NewUser, UserPatch, UserRow } from '../schema.js';
import { createBatchedLookup } from './batchedLookup.js';
import { containsIgnoreCase } from './like.js';
import { createUnchangedCache } from './changeMark.js';
import { prepare } from './prepared.js';

export interface UserQuery {
  roles?: readonly string[];
  excludeRole?: string;
  q?: string;
  /** Presence status, exactly (upper case as stored). */
  status?: string;
  /** `agent_kind`, exactly. */
  kind?: string;
  /** One user by id. */
  id?: number;
  offset: number;
  limit: number;
}

/** A machine user with its token hint (none for Butler, which holds no token). */
export type MachineUserRow = UserRow & { [K in 'token_hint' | 'token_updated_at']: MachineCredentialRow[K] | null };

export type MachineListQuery = Omit<UserQuery, 'roles'>;

/**
 * The total of a page's filter, when the page itself says it: a page that is neither full nor
 * empty past the start ends the list. Otherwise undefined (the count needs its own query).
 */
function totalFromPage(rows: number, query: { offset: number; limit: number }): number | undefined {
  if (rows < query.limit && (rows > 0 || query.offset === 0)) return query.offset + rows;
  return undefined;
}

export interface UsersRepoOptions {
  /**
   * Token lookups that arrive together go to the store as one query (PostgreSQL, where each query
   * holds a pool connection for a round trip); on SQLite a lookup is a few µs in process, one each.
   */
  batchTokenLookups?: boolean;
}

export function createUsersRepo(db: Kysely<Database>, options: UsersRepoOptions = {}) {
  function filtered(query: Omit<UserQuery, 'offset' | 'limit'>) {
    let builder = db.selectFrom('users');
    if (query.roles && query.roles.length > 0) builder = builder.where('role', 'in', [...query.roles]);
    if (query.excludeRole) builder = builder.where('role', '<>', query.excludeRole);
    if (query.q) builder = builder.where(({ ref }) => containsIgnoreCase(ref('username'), query.q!));
    // Butler lives in the hub: a presence filter means the agents', never the core agent's.
    if (query.status) builder = builder.where('status', '=', query.status).where('role', '<>', 'BUTLER');
    if (query.kind) builder = builder.where('agent_kind', '=', query.kind);
    if (query.id !== undefined) builder = builder.where('users.id', '=', query.id);
    return builder;
  }

  const isFiltered = (query: MachineListQuery) => Boolean(query.q || query.status || query.kind) || query.id !== undefined;

  const countOf = async (query: Omit<UserQuery, 'offset' | 'limit'>) => {
    const row = await filtered(query)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  /** Machine users with their token hints: one joined query instead of a page and a lookup of its credentials. */
  const machines = (query: Omit<MachineListQuery, 'offset' | 'limit'>) =>
    filtered({ ...query, roles: MachineRoles })
      .leftJoin('machine_credentials', 'machine_credentials.user_id', 'users.id')
      .selectAll('users')
      .select(['machine_credentials.token_hint', 'machine_credentials.token_updated_at'])
      .orderBy('users.id');

  // The shapes every authenticated request or dashboard poll runs, compiled once.
  const byId = prepare(db, 1, (id: number) => db.selectFrom('users').selectAll().where('id', '=', id));
  const byUsername = prepare(db, 1, (username: string) => db.selectFrom('users').selectAll().where('username', '=', username));
  // A subquery, not a join: SQLite ran the join form of this lookup about ten times slower (55 µs
  // against 4 µs here), and every agent request and connect runs it.
  const byTokenLookup = prepare(db, 1, (lookup: string) =>
    db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', (eb) => eb.selectFrom('machine_credentials').select('user_id').where('token_lookup', '=', lookup)),
  );
  const byTokenLookups = createBatchedLookup(
    async (lookups: string[]) => {
      const rows = await db
        .selectFrom('machine_credentials')
        .innerJoin('users', 'users.id', 'machine_credentials.user_id')
        .selectAll('users')
        .select('machine_credentials.token_lookup')
        .where('machine_credentials.token_lookup', 'in', lookups)
        .execute();
      return new Map(rows.map(({ token_lookup, ...user }) => [token_lookup, user as UserRow]));
    },
    { parallel: 2, maxKeys: 500 },
  );
  const machinePage = prepare(db, 2, (limit: number, offset: number) => machines({}).limit(limit).offset(offset));
  const machinePageExcluding = prepare(db, 3, (excludeRole: string, limit: number, offset: number) => machines({ excludeRole }).limit(limit).offset(offset));
  // Dashboards poll the agent list; on SQLite a page is read again only once the file changed.
  const machinePages = createUnchangedCache<Database, { rows: MachineUserRow[]; total: number }>(db, 32);

  async function readMachines(query: MachineListQuery): Promise<{ rows: MachineUserRow[]; total: number }> {
    const rows = isFiltered(query)
      ? await machines(query).limit(query.limit).offset(query.offset).execute()
      : query.excludeRole
        ? await machinePageExcluding(query.excludeRole, query.limit, query.offset)
        : await machinePage(query.limit, query.offset);
    return { rows, total: totalFromPage(rows.length, query) ?? (await countOf({ ...query, roles: MachineRoles })) };
  }

  return {
    async insert(user: NewUser, trx: Kysely<Database> = db): Promise<UserRow> {
      return trx.insertInto('users').values(user).returningAll().executeTakeFirstOrThrow();
    },
    async findById(id: number): Promise<UserRow | undefined> {
      return (await byId(id))[0];
    },
    async findByUsername(username: string): Promise<UserRow | undefined> {
      return (await byUsername(username))[0];
    },
    /** The user holding the machine credential with this lookup digest, in one query. */
    async findByTokenLookup(lookup: string): Promise<UserRow | undefined> {
      return options.batchTokenLookups ? byTokenLookups(lookup) : (await byTokenLookup(lookup))[0];
    },
    async list(query: UserQuery): Promise<{ rows: UserRow[]; total: number }> {
      const rows = await filtered(query).selectAll().orderBy('id').limit(query.limit).offset(query.offset).execute();
      return { rows, total: totalFromPage(rows.length, query) ?? (await countOf(query)) };
    },
    /** Agents and Butler with their token hints, paged by id. The rows may be shared with other callers: read them, never change them. */
    async listMachines(query: MachineListQuery): Promise<{ rows: MachineUserRow[]; total: number }> {
      // A search or filter is not cached: its presence columns change with every connect.
      if (!machinePages || isFiltered(query)) return readMachines(query);
      return machinePages.get(`${query.excludeRole ?? ''}:${query.limit}:${query.offset}`, () => readMachines(query));
    },
    /**
     * Agents (role AGENT) by presence status and by kind: two grouped reads over the (role, status)
     * and (role, agent_kind) indexes of migration 0017, never a row per agent.
     */
    async agentCounts(): Promise<{ byStatus: { status: string; online: boolean; count: number }[]; byKind: { kind: string | null; count: number }[] }> {
      const [byStatus, byKind] = await Promise.all([
        db
          .selectFrom('users')
          .where('role', '=', 'AGENT')
          .select(['status', 'online', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy(['status', 'online'])
          .execute(),
        db
          .selectFrom('users')
          .where('role', '=', 'AGENT')
          .select(['agent_kind', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('agent_kind')
          .execute(),
      ]);
      return {
        byStatus: byStatus.map((r) => ({ status: r.status, online: Number(r.online) === 1, count: Number(r.n) })),
        byKind: byKind.map((r) => ({ kind: r.agent_kind, count: Number(r.n) })),
      };
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
