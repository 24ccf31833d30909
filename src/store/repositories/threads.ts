// Conversation threads: a human's conversations with one machine peer.
import { sql, type Kysely } from 'kysely';
import type { ChannelKind } from '../../protocol/threads.js';
import { defaultThreadTitle } from '../../protocol/threads.js';
import type { Database, ThreadRow } from '../schema.js';

export function createThreadsRepo(db: Kysely<Database>) {
  async function findDefault(ownerId: number, peerId: number, kind: ChannelKind): Promise<ThreadRow | undefined> {
    return db
      .selectFrom('conversation_threads')
      .selectAll()
      .where('owner_user_id', '=', ownerId)
      .where('peer_user_id', '=', peerId)
      .where('channel_kind', '=', kind)
      .where('is_default', '=', 1)
      .executeTakeFirst();
  }

  return {
    async findById(id: number): Promise<ThreadRow | undefined> {
      return db.selectFrom('conversation_threads').selectAll().where('id', '=', id).executeTakeFirst();
    },

    findDefault,

    /** The default thread of (owner, peer, kind), created on first use; safe against a racing creator. */
    async getOrCreateDefault(ownerId: number, peer: { id: number; username: string }, kind: ChannelKind, now: string): Promise<ThreadRow> {
      const existing = await findDefault(ownerId, peer.id, kind);
      if (existing) return existing;
      await db
        .insertInto('conversation_threads')
        .values({
          owner_user_id: ownerId,
          peer_user_id: peer.id,
          channel_kind: kind,
          title: defaultThreadTitle(peer.username),
          is_default: 1,
          created_at: now,
          updated_at: now,
        })
        // The target's WHERE must repeat the partial index's own literal: SQLite cannot match `is_default = ?`.
        .onConflict((oc) => oc.columns(['owner_user_id', 'peer_user_id', 'channel_kind']).where('is_default', '=', sql.lit(1)).doNothing())
        .execute();
      const row = await findDefault(ownerId, peer.id, kind);
      if (!row) throw new Error(`default thread of ${ownerId}/${peer.id}/${kind} vanished after creation`);
      return row;
    },

    /** Marks threads as having new messages (one statement per thread touched by a committed batch). */
    async touch(threadIds: Iterable<number>, at: string, trx: Kysely<Database> = db): Promise<void> {
      for (const id of threadIds) {
        await trx.updateTable('conversation_threads').set({ last_message_at: at, updated_at: at }).where('id', '=', id).execute();
      }
    },
  };
}
export type ThreadsRepo = ReturnType<typeof createThreadsRepo>;
