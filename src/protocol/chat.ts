// Zod schemas of the chat history and conversation-thread routes (wire.md §3, /api/chat/*).
// Kept apart from http.ts so the chat surface is defined in one place; ids come from http.ts.
import * as z from 'zod';
import { id } from './http.js';
import { ChannelKinds } from './threads.js';

/** The most rows one history page may ask for; a dashboard pages further with `before_id`. */
export const MAX_HISTORY_LIMIT = 500;
export const DEFAULT_HISTORY_LIMIT = 100;
export const MAX_THREAD_TITLE = 200;
export const MAX_THREAD_SUMMARY = 4000;

// Query strings arrive as text; an empty value counts as absent (`?before_id=` from a form).
const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);
const optionalQueryId = z.preprocess(emptyAsAbsent, id.optional());
const channelKind = z.enum(ChannelKinds);

/** `limit` and `before_id` of every history page: the newest `limit` rows below `before_id`. */
export const historyPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_HISTORY_LIMIT).default(DEFAULT_HISTORY_LIMIT),
  before_id: optionalQueryId,
});
export type HistoryPage = z.infer<typeof historyPageQuery>;

export const peerParams = z.object({ peer_id: id });
export const agentParams = z.object({ agent_id: id });

/** A query flag: `true`/`1` or `false`/`0`; anything else is a 400 rather than a silent false. */
const queryFlag = z.preprocess(
  emptyAsAbsent,
  z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
);

export const listThreadsQuery = z.object({
  peer_id: optionalQueryId,
  channel_kind: z.preprocess(emptyAsAbsent, channelKind.optional()),
  include_archived: queryFlag,
});
export type ListThreadsQuery = z.infer<typeof listThreadsQuery>;

// A title is one line; a summary may have line breaks. Neither may hold other control characters
// (PostgreSQL cannot store NUL at all, and a dashboard cannot show the rest).
// eslint-disable-next-line no-control-regex
const LINE_CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const threadTitle = z
  .string()
  .trim()
  .min(1)
  .max(MAX_THREAD_TITLE)
  .refine((v) => !LINE_CONTROL.test(v), 'must not contain control characters');
const threadSummary = z
  .string()
  .trim()
  .max(MAX_THREAD_SUMMARY)
  .refine((v) => !TEXT_CONTROL.test(v), 'must not contain control characters other than line breaks and tabs');

export const createThreadBody = z.object({
  peer_id: id,
  channel_kind: channelKind.optional(),
  title: threadTitle.optional(),
});
export type CreateThreadInput = z.infer<typeof createThreadBody>;

export const updateThreadBody = z.object({
  title: threadTitle.optional(),
  summary: threadSummary.optional(),
  is_pinned: z.boolean().optional(),
  is_archived: z.boolean().optional(),
});
export type UpdateThreadInput = z.infer<typeof updateThreadBody>;
