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

/**
 * The most rows a dashboard count reads: beyond it the total is given as this many and flagged as
 * capped. A count of every matching row read the whole table on each page of a large hub.
 */
export const TOTAL_COUNT_CAP = 10_000;

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
    /** The page, and the matching rows counted up to TOTAL_COUNT_CAP (`capped`: there are more). */
    async listDashboard(query: DashboardQuery): Promise<{ rows: MessageRow[]; total: number; capped: boolean }> {
      let page = filteredMessages(db, query).selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.beforeId !== undefined) page = page.where('id', '<', query.beforeId);
      else if (query.offset > 0) page = page.offset(query.offset);
      const [rows, count] = await Promise.all([
        page.execute(),
        db
          .selectFrom(
            filteredMessages(db, query)
              .select('id')
              .limit(TOTAL_COUNT_CAP + 1)
              .as('matching'),
          )
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      const n = Number(count.n);
      return { rows, total: Math.min(n, TOTAL_COUNT_CAP), capped: n > TOTAL_COUNT_CAP };
    },
  };
}
export type MessagesRepo = ReturnType<typeof createMessagesRepo>;
