// Conversation threads: a human's conversations with one machine peer.
import type { Kysely } from 'kysely';
import type { ChannelKind } from '../../protocol/threads.js';
import type { Database, NewThread, ThreadRow } from '../schema.js';

export interface ThreadQuery {
  ownerId: number;
  peerId?: number;
  kind?: ChannelKind;
  includeArchived: boolean;
}

/** The columns an owner may change; the service fills `updated_at`. */
export type ThreadPatch = Partial<Pick<ThreadRow, 'title' | 'summary' | 'is_pinned' | 'archived_at'>> & { updated_at: string };

export function createThreadsRepo(db: Kysely<Database>) {
  return {
    async findById(id: number): Promise<ThreadRow | undefined> {
      return db.selectFrom('conversation_threads').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** An owner's threads: pinned first, then the most recently active (never active last), newest first. */
    async list(query: ThreadQuery): Promise<ThreadRow[]> {
      let builder = db.selectFrom('conversation_threads').selectAll().where('owner_user_id', '=', query.ownerId);
      if (query.peerId !== undefined) builder = builder.where('peer_user_id', '=', query.peerId);
      if (query.kind !== undefined) builder = builder.where('channel_kind', '=', query.kind);
      if (!query.includeArchived) builder = builder.where('archived_at', 'is', null);
      // NULLS LAST spelled out: PostgreSQL puts nulls first in a descending order, SQLite last.
      return builder
        .orderBy('is_pinned', 'desc')
        .orderBy('last_message_at', (ob) => ob.desc().nullsLast())
        .orderBy('id', 'desc')
        .execute();
    },

    async insert(thread: NewThread): Promise<ThreadRow> {
      return db.insertInto('conversation_threads').values(thread).returningAll().executeTakeFirstOrThrow();
    },

    /** Updates one owner's thread; undefined when no thread of that owner has the id. */
    async update(id: number, ownerId: number, patch: ThreadPatch): Promise<ThreadRow | undefined> {
      return db.updateTable('conversation_threads').set(patch).where('id', '=', id).where('owner_user_id', '=', ownerId).returningAll().executeTakeFirst();
    },
  };
}
export type ThreadsRepo = ReturnType<typeof createThreadsRepo>;
