// The message log: dashboard telemetry and chat rows share one table and one id sequence.
// Rows are written only by the pipeline's group commit (store/batchWriter.ts); this reads them.
import type { Kysely } from 'kysely';
import type { Database, MessageRow } from '../schema.js';
import { filteredMessages, visibleTo, type MessageFilter } from './messageFilter.js';

export interface DashboardQuery extends Omit<MessageFilter, 'since'> {
  beforeId?: number;
  offset: number;
  limit: number;
}

export function createMessagesRepo(db: Kysely<Database>) {
  return {
    /**
     * Stored rows after `sinceId` that may concern a user, oldest first: addressed to them, sent by
     * them, broadcast, or (admins) anything, for the monitor copies. Routing rules filter the rest.
     */
    async afterId(user: { id: number; role: string }, sinceId: number, limit: number): Promise<MessageRow[]> {
      let query = db.selectFrom('messages').selectAll().where('id', '>', sinceId);
      if (user.role !== 'ADMIN') {
        query = query.where((eb) => visibleTo(eb, user.id));
      }
      return query.orderBy('id').limit(limit).execute();
    },
    async listDashboard(query: DashboardQuery): Promise<{ rows: MessageRow[]; total: number }> {
      let page = filteredMessages(db, query).selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.beforeId !== undefined) page = page.where('id', '<', query.beforeId);
      else if (query.offset > 0) page = page.offset(query.offset);
      const [rows, count] = await Promise.all([
        page.execute(),
        filteredMessages(db, query)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}
export type MessagesRepo = ReturnType<typeof createMessagesRepo>;
