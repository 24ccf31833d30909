// The message log: dashboard telemetry and chat rows share one table and one id sequence.
// Rows are written only by the pipeline's group commit (store/batchWriter.ts); this reads them.
import type { Kysely } from 'kysely';
import type { Database, MessageRow } from '../schema.js';
import { containsIgnoreCase } from './like.js';

export interface DashboardQuery {
  types: readonly string[];
  senderName?: string;
  level?: string;
  q?: string;
  beforeId?: number;
  offset: number;
  limit: number;
  /** When set, only rows broadcast, addressed to or sent by this user (members); unset for admins. */
  visibleTo?: number;
}

export function createMessagesRepo(db: Kysely<Database>) {
  function dashboardFilter(query: Omit<DashboardQuery, 'beforeId' | 'offset' | 'limit'>) {
    let builder = db.selectFrom('messages').where('type', 'in', [...query.types]);
    if (query.senderName) builder = builder.where('sender_name', '=', query.senderName);
    if (query.level) builder = builder.where('level', '=', query.level);
    if (query.q) builder = builder.where(({ ref }) => containsIgnoreCase(ref('content'), query.q!));
    if (query.visibleTo !== undefined) {
      const me = query.visibleTo;
      builder = builder.where((eb) => eb.or([eb('target_id', 'is', null), eb('target_id', '=', me), eb('sender_id', '=', me)]));
    }
    return builder;
  }

  return {
    /**
     * Stored rows after `sinceId` that may concern a user, oldest first: addressed to them, sent by
     * them, broadcast, or (admins) anything, for the monitor copies. Routing rules filter the rest.
     */
    async afterId(user: { id: number; role: string }, sinceId: number, limit: number): Promise<MessageRow[]> {
      let query = db.selectFrom('messages').selectAll().where('id', '>', sinceId);
      if (user.role !== 'ADMIN') {
        query = query.where((eb) => eb.or([eb('target_id', 'is', null), eb('target_id', '=', user.id), eb('sender_id', '=', user.id)]));
      }
      return query.orderBy('id').limit(limit).execute();
    },
    async listDashboard(query: DashboardQuery): Promise<{ rows: MessageRow[]; total: number }> {
      let page = dashboardFilter(query).selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.beforeId !== undefined) page = page.where('id', '<', query.beforeId);
      else if (query.offset > 0) page = page.offset(query.offset);
      const [rows, count] = await Promise.all([
        page.execute(),
        dashboardFilter(query)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}
export type MessagesRepo = ReturnType<typeof createMessagesRepo>;
