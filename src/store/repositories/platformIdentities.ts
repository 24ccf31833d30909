// Hub users that stand for chat-platform users, and the thread of each such user in each platform
// chat (so Butler's answer in a thread goes back to the chat it came from).
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export interface PlatformThread {
  thread_id: number;
  user_id: number;
  chat_id: string;
}

export function createPlatformIdentitiesRepo(db: Kysely<Database>) {
  return {
    async userOf(platformUserId: string): Promise<number | undefined> {
      const row = await db.selectFrom('platform_identities').select('user_id').where('platform_user_id', '=', platformUserId).executeTakeFirst();
      return row?.user_id;
    },

    async platformUserOf(userId: number): Promise<string | undefined> {
      const row = await db.selectFrom('platform_identities').select('platform_user_id').where('user_id', '=', userId).executeTakeFirst();
      return row?.platform_user_id;
    },

    async insert(userId: number, platformUserId: string, now: string, trx: Kysely<Database> = db): Promise<void> {
      await trx.insertInto('platform_identities').values({ user_id: userId, platform_user_id: platformUserId, created_at: now }).execute();
    },

    async allUserIds(): Promise<number[]> {
      const rows = await db.selectFrom('platform_identities').select('user_id').orderBy('user_id').execute();
      return rows.map((r) => r.user_id);
    },

    async thread(userId: number, chatId: string): Promise<PlatformThread | undefined> {
      return db
        .selectFrom('platform_threads')
        .select(['thread_id', 'user_id', 'chat_id'])
        .where('user_id', '=', userId)
        .where('chat_id', '=', chatId)
        .executeTakeFirst();
    },

    async threadById(threadId: number): Promise<PlatformThread | undefined> {
      return db.selectFrom('platform_threads').select(['thread_id', 'user_id', 'chat_id']).where('thread_id', '=', threadId).executeTakeFirst();
    },

    /** The chat the user wrote from last: where an answer without a known thread goes. */
    async latestThreadOf(userId: number): Promise<PlatformThread | undefined> {
      return db
        .selectFrom('platform_threads')
        .select(['thread_id', 'user_id', 'chat_id'])
        .where('user_id', '=', userId)
        .orderBy('last_message_at', 'desc')
        .orderBy('thread_id', 'desc')
        .executeTakeFirst();
    },

    async insertThread(thread: PlatformThread, now: string, trx: Kysely<Database> = db): Promise<void> {
      await trx
        .insertInto('platform_threads')
        .values({ ...thread, last_message_at: now })
        .execute();
    },

    async touchThread(threadId: number, now: string): Promise<void> {
      await db.updateTable('platform_threads').set({ last_message_at: now }).where('thread_id', '=', threadId).execute();
    },
  };
}
export type PlatformIdentitiesRepo = ReturnType<typeof createPlatformIdentitiesRepo>;
