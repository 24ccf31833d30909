// Hub identities of platform users: a MEMBER without a password (so it cannot log in), created on
// first contact, and one conversation thread with Butler per platform chat it writes from.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../store/errors.js';
import type { PlatformIdentitiesRepo, PlatformThread } from '../store/repositories/platformIdentities.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Database } from '../store/schema.js';
import type { Clock } from '../clock.js';
import { toPrincipal } from '../delivery/directory.js';
import type { Principal } from '../delivery/types.js';

/** `runtime_kind` of platform identities: how the dashboards (and Butler) can tell them apart. */
export const PLATFORM_RUNTIME_KIND = 'chatplatform';
const USERNAME_PREFIX = 'feishu:';
const MAX_USERNAME = 64;

/** A stable, unique user name for a platform user id (hashed when too long to keep as it is). */
export function identityUsername(platformUserId: string): string {
  const name = `${USERNAME_PREFIX}${platformUserId}`;
  if (name.length <= MAX_USERNAME) return name;
  return `${USERNAME_PREFIX}${createHash('sha256').update(platformUserId).digest('hex').slice(0, 40)}`;
}

export interface IdentitiesDeps {
  db: Kysely<Database>;
  users: UsersRepo;
  threads: ThreadsRepo;
  identities: PlatformIdentitiesRepo;
  clock: Clock;
}

export function createPlatformIdentities(deps: IdentitiesDeps) {
  const { db, users, threads, identities, clock } = deps;

  async function existing(platformUserId: string): Promise<Principal | undefined> {
    const userId = await identities.userOf(platformUserId);
    if (userId === undefined) return undefined;
    const row = await users.findById(userId);
    return row ? toPrincipal(row) : undefined;
  }

  return {
    /** The identity of a platform user; `created` on first contact. */
    async identityOf(platformUserId: string): Promise<{ user: Principal; created: boolean }> {
      const found = await existing(platformUserId);
      if (found) return { user: found, created: false };
      const now = clock();
      try {
        const row = await db.transaction().execute(async (trx) => {
          const user = await users.insert(
            {
              username: identityUsername(platformUserId),
              role: 'MEMBER',
              actor_type: 'HUMAN',
              runtime_kind: PLATFORM_RUNTIME_KIND,
              description: `Chat-platform user ${platformUserId}`,
              status: 'OFFLINE',
              online: 0,
              created_at: now,
              updated_at: now,
            },
            trx,
          );
          await identities.insert(user.id, platformUserId, now, trx);
          return user;
        });
        return { user: toPrincipal(row), created: true };
      } catch (err) {
        // Another hub on the same database made it first.
        if (!isUniqueViolation(err)) throw err;
        const raced = await existing(platformUserId);
        if (!raced) throw err;
        return { user: raced, created: false };
      }
    },

    /** The user's thread with Butler for one platform chat, created on the first message from it. */
    async threadOf(user: Principal, butler: Principal, chatId: string): Promise<number> {
      const now = clock();
      const found = await identities.thread(user.id, chatId);
      if (found) {
        await identities.touchThread(found.thread_id, now);
        return found.thread_id;
      }
      const thread = await threads.insert({
        owner_user_id: user.id,
        peer_user_id: butler.id,
        channel_kind: 'butler_direct',
        title: `Chat-platform chat ${chatId}`,
        is_default: 0,
        created_at: now,
        updated_at: now,
      });
      try {
        await identities.insertThread({ thread_id: thread.id, user_id: user.id, chat_id: chatId }, now);
        return thread.id;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        const raced = await identities.thread(user.id, chatId);
        if (!raced) throw err;
        return raced.thread_id;
      }
    },

    /** Where an answer to this user in this thread goes: the thread's chat, else their latest chat. */
    async chatFor(userId: number, threadId: number | undefined): Promise<PlatformThread | undefined> {
      if (threadId !== undefined) {
        const thread = await identities.threadById(threadId);
        if (thread && thread.user_id === userId) return thread;
      }
      return identities.latestThreadOf(userId);
    },

    async isIdentity(userId: number): Promise<boolean> {
      return (await identities.platformUserOf(userId)) !== undefined;
    },

    allUserIds: () => identities.allUserIds(),
  };
}
export type PlatformIdentities = ReturnType<typeof createPlatformIdentities>;
