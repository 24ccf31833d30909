// The message log: dashboard telemetry and chat rows share one table and one id sequence.
import type { Kysely } from 'kysely';
import type { Database, MessageRow, NewMessage } from '../schema.js';
import { containsIgnoreCase, storableText } from './like.js';

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
     * Stores one message. A repeated (sender, local_id) is stored once: the first row is returned
     * with `duplicate: true`.
     */
    async insert(message: NewMessage): Promise<{ row: MessageRow; duplicate: boolean }> {
      const row = await db
        .insertInto('messages')
        .values({ ...message, content: storableText(message.content) })
        .onConflict((oc) => oc.columns(['sender_id', 'local_id']).where('local_id', 'is not', null).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return { row, duplicate: false };
      const existing = await db
        .selectFrom('messages')
        .selectAll()
        .where('sender_id', '=', message.sender_id)
        .where('local_id', '=', message.local_id!)
        .executeTakeFirstOrThrow();
      return { row: existing, duplicate: true };
    },
    async listDashboard(query: DashboardQuery): Promise<{ rows: MessageRow[]; total: number }> {
      let page = dashboardFilter(query).selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.beforeId !== undefined) page = page.where('id', '<', query.beforeId);
      else if (query.offset > 0) page = page.offset(query.offset);
      const [rows, count] = await Promise.all([
        page.execute(),
        dashboardFilter(query).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.n) };
    },
  };
}
export type MessagesRepo = ReturnType<typeof createMessagesRepo>;
