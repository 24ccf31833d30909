// Human users: creation (admin or self-registration), listing, detail, role and password changes,
// deletion. Machines are handled by the agents service.
import type { Kysely } from 'kysely';
import { Errors } from '../errors.js';
import { type UserView } from '../protocol/objects.js';
import { actorTypeOf, isMachineRole, type HumanRole, type Role } from '../protocol/roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Database, UserRow } from '../store/schema.js';
import type { Clock } from '../clock.js';
import type { LiveSessions } from '../actors/liveSessions.js';
import type { PasswordHasher } from '../auth/passwords.js';
import { CloseCode } from '../protocol/errors.js';
import { toUserView, toUserViews } from './views.js';

export interface UsersServiceDeps {
  db: Kysely<Database>;
  users: UsersRepo;
  credentials: CredentialsRepo;
  passwords: PasswordHasher;
  clock: Clock;
  sessions: LiveSessions;
}

export interface ListQuery {
  role?: Role;
  q?: string;
  page: number;
  limit: number;
}

/**
 * A person with this role (and password, when given); `username already exists` when taken. Shared by
 * the admin's HTTP route and `agent-hub create-admin`, which has no live sessions to hand.
 */
export async function createHumanUser(
  deps: Pick<UsersServiceDeps, 'db' | 'users' | 'credentials' | 'passwords' | 'clock'>,
  input: { username: string; password?: string; role: HumanRole },
): Promise<UserRow> {
  const { db, users, credentials, passwords, clock } = deps;
  if (await users.findByUsername(input.username)) throw Errors.usernameTaken();
  // Hash before the transaction: the slow part must not hold the write lock.
  const hash = input.password === undefined ? undefined : await passwords.hash(input.password);
  const now = clock();
  try {
    return await db.transaction().execute(async (trx) => {
      const user = await users.insert(
        { username: input.username, role: input.role, actor_type: actorTypeOf(input.role), status: 'OFFLINE', online: 0, created_at: now, updated_at: now },
        trx,
      );
      if (hash !== undefined) await credentials.setPassword(user.id, hash, now, trx);
      return user;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw Errors.usernameTaken();
    throw err;
  }
}

export function createUsersService(deps: UsersServiceDeps) {
  const { db, users, credentials, passwords, clock, sessions } = deps;

  /**
   * Inside `trx`, before `targetId` stops being an admin: the hub keeps at least one admin, and the
   * actor must still be one. Checked under the admins' lock, so two admins demoting or deleting each
   * other at the same moment cannot both succeed.
   */
  async function assertAdminsRemain(trx: Kysely<Database>, targetId: number, actor: UserRow, lastAdmin: string): Promise<void> {
    const admins = await users.lockAdmins(trx);
    if (!admins.includes(actor.id)) throw Errors.adminRequired();
    if (admins.includes(targetId) && admins.length <= 1) throw Errors.conflict(lastAdmin);
  }

  return {
    createHuman: (input: { username: string; password?: string; role: HumanRole }) => createHumanUser(deps, input),

    async list(query: ListQuery): Promise<{ items: UserView[]; total: number }> {
      const { rows, total } = await users.list({
        roles: query.role ? [query.role] : undefined,
        q: query.q,
        offset: (query.page - 1) * query.limit,
        limit: query.limit,
      });
      return { items: await toUserViews(rows, credentials), total };
    },

    /** Admins see everyone; members see machines and themselves (others read as not found). */
    async get(id: number, viewer: UserRow): Promise<UserView> {
      const user = await users.findById(id);
      if (!user || (viewer.role !== 'ADMIN' && user.id !== viewer.id && !isMachineRole(user.role))) throw Errors.notFound('user');
      return (await toUserViews([user], credentials))[0]!;
    },

    /** `actor` is the admin asking; their rights are checked again under the admins' lock. */
    async update(id: number, patch: { role?: HumanRole; password?: string }, actor: UserRow): Promise<UserView> {
      const user = await users.findById(id);
      if (!user) throw Errors.notFound('user');
      if (isMachineRole(user.role)) throw Errors.badRequest('agents are managed under /api/users/agents');
      if (patch.role === undefined && patch.password === undefined) throw Errors.badRequest('nothing to update: send role and/or password');
      const hash = patch.password === undefined ? undefined : await passwords.hash(patch.password);
      const now = clock();
      const { before, updated } = await db.transaction().execute(async (trx) => {
        if (patch.role !== undefined && patch.role !== 'ADMIN') await assertAdminsRemain(trx, id, actor, 'cannot demote the last admin');
        const before = await trx.selectFrom('users').select('role').where('id', '=', id).executeTakeFirst();
        if (!before) throw Errors.notFound('user'); // deleted since the first read
        if (hash !== undefined) await credentials.setPassword(id, hash, now, trx);
        const updated = await trx
          .updateTable('users')
          .set({ ...(patch.role ? { role: patch.role } : {}), updated_at: now })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirstOrThrow();
        return { before, updated };
      });
      // Open sockets were routed with the old role (admins get monitor copies): reconnecting fixes that.
      if (patch.role && patch.role !== before.role) sessions.endUser(id, CloseCode.roleChanged, 'role changed; reconnect');
      return toUserView(updated);
    },

    async deleteHuman(id: number, actor: UserRow): Promise<void> {
      const user = await users.findById(id);
      if (!user) throw Errors.notFound('user');
      if (isMachineRole(user.role)) throw Errors.badRequest('agents are deleted with DELETE /api/users/agents/:id');
      if (user.id === actor.id) throw Errors.conflict('you cannot delete your own account');
      await db.transaction().execute(async (trx) => {
        await assertAdminsRemain(trx, id, actor, 'cannot delete the last admin');
        if (!(await users.delete(id, trx))) throw Errors.notFound('user'); // deleted since the first read
      });
      sessions.endUser(id, CloseCode.unauthorized, 'user deleted');
    },
  };
}
export type UsersService = ReturnType<typeof createUsersService>;
