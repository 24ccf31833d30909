// Chat history reads: the rows between two users and the rows of one conversation thread.
// Every page is "the newest `limit` rows below `beforeId`", read newest first so each query stops
// after `limit` index entries, and handed back oldest first as a chat view shows them.
import type { Kysely } from 'kysely';
import type { Database, MessageRow } from '../schema.js';

export interface ChatPage {
  limit: number;
  beforeId?: number;
}

export function createChatRepo(db: Kysely<Database>) {
  /** Rows one user sent to another, newest first, walking messages_pair_idx (sender_id, target_id, id). */
  function oneDirection(senderId: number, targetId: number, types: readonly string[], page: ChatPage) {
    let builder = db
      .selectFrom('messages')
      .selectAll()
      .where('sender_id', '=', senderId)
      .where('target_id', '=', targetId)
      .where('type', 'in', [...types]);
    if (page.beforeId !== undefined) builder = builder.where('id', '<', page.beforeId);
    return builder.orderBy('id', 'desc').limit(page.limit);
  }

  return {
    /**
     * The conversation of the newest CHAT `senderId` sent to `targetId` in one, if any: a backward
     * walk of messages_pair_idx that stops at the first row with a conversation.
     */
    async latestConversation(senderId: number, targetId: number): Promise<number | undefined> {
      const row = await db
        .selectFrom('messages')
        .select('conversation_id')
        .where('sender_id', '=', senderId)
        .where('target_id', '=', targetId)
        .where('type', '=', 'CHAT')
        .where('conversation_id', 'is not', null)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row?.conversation_id ?? undefined;
    },

    /**
     * Rows of the given types between users `a` and `b` in either direction. A UNION ALL of the two
     * directions, each a range of messages_pair_idx that stops after `limit` rows, rather than an OR:
     * for the OR, SQLite's plan walks messages_type_idx over every chat row of the hub and sorts them
     * (EXPLAIN QUERY PLAN), whatever the pair.
     */
    async between(a: number, b: number, types: readonly string[], page: ChatPage): Promise<MessageRow[]> {
      // Talking to oneself is one direction; a union of it with itself would list every row twice.
      const newestFirst =
        a === b
          ? await oneDirection(a, a, types, page).execute()
          : await db
              .selectFrom(oneDirection(a, b, types, page).as('ab'))
              .selectAll()
              .unionAll(db.selectFrom(oneDirection(b, a, types, page).as('ba')).selectAll())
              .orderBy('id', 'desc')
              .limit(page.limit)
              .execute();
      return newestFirst.reverse();
    },

    /** Rows of the given types stored in one conversation thread, via messages_conversation_idx. */
    async inConversation(conversationId: number, types: readonly string[], page: ChatPage): Promise<MessageRow[]> {
      let builder = db
        .selectFrom('messages')
        .selectAll()
        .where('conversation_id', '=', conversationId)
        .where('type', 'in', [...types]);
      if (page.beforeId !== undefined) builder = builder.where('id', '<', page.beforeId);
      const newestFirst = await builder.orderBy('id', 'desc').limit(page.limit).execute();
      return newestFirst.reverse();
    },
  };
}
export type ChatRepo = ReturnType<typeof createChatRepo>;
