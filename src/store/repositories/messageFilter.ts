// The filter the dashboard's message list and its charts share: types, sender, level, text, and
// what a member may see (rows broadcast, addressed to them or sent by them).
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { containsIgnoreCase } from './like.js';

export interface MessageFilter {
  types: readonly string[];
  /** Only rows created at or after this ISO 8601 instant. */
  since?: string;
  senderName?: string;
  level?: string;
  /** Only rows whose searchable text contains this. */
  q?: string;
  /** When set, only rows broadcast, addressed to or sent by this user (members); unset for admins. */
  visibleTo?: number;
}

/** Rows broadcast, addressed to `userId` or sent by them. */
export const visibleTo = (eb: ExpressionBuilder<Database, 'messages'>, userId: number) =>
  eb.or([eb('target_id', 'is', null), eb('target_id', '=', userId), eb('sender_id', '=', userId)]);

export function filteredMessages(db: Kysely<Database>, filter: MessageFilter) {
  let builder = db.selectFrom('messages').where('type', 'in', [...filter.types]);
  if (filter.since !== undefined) builder = builder.where('created_at', '>=', filter.since);
  if (filter.senderName) builder = builder.where('sender_name', '=', filter.senderName);
  if (filter.level) builder = builder.where('level', '=', filter.level);
  if (filter.q) builder = builder.where(({ ref }) => containsIgnoreCase(ref('content'), filter.q!));
  if (filter.visibleTo !== undefined) {
    const me = filter.visibleTo;
    builder = builder.where((eb) => visibleTo(eb, me));
  }
  return builder;
}
