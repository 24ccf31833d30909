// One flush of the queue becomes one batch: every message resolved in order (a message that cannot
// be accepted is set aside with its reason), repeats of a (sender, local_id) folded into their first
// row, presence changes merged into one patch per user, and the threads to touch — the write that
// commits it all in one transaction, and what each message will deliver and answer afterwards.
import type { Logger } from 'pino';
import { Errors, HubError } from '../errors.js';
import { isTelemetryType } from '../protocol/frames.js';
import { reportLine } from '../protocol/reportLine.js';
import type { MessageInsert, PresencePatch, WriteBatch } from '../store/batchWriter.js';
import { audienceOf } from './audience.js';
import type { Item, MessageItem } from './items.js';
import type { Audience, Message } from './types.js';

/** A message that resolved, waiting for its batch to commit. */
export interface Ready {
  item: MessageItem;
  message: Message;
  audience: Audience;
  /** Index into the write's messages when it is stored as a new row; -1 for a relay or a repeat. */
  row: number;
  /** The earlier message of this batch with the same (sender, local_id), whose row it shares. */
  sameAs?: Ready;
}

export interface Batch {
  /** Items flushed (messages and presence changes). */
  size: number;
  /** Resolved messages, in queue order. */
  ready: Ready[];
  /** Messages that cannot be accepted, with the reason each sender is told. */
  rejected: Array<[MessageItem, HubError]>;
  write: WriteBatch;
}

/** A busy thread's last_message_at is written at most this often (ms). */
export const THREAD_TOUCH_MS = 1000;
/** Longest last_report an agent's report leaves on its presence. */
const MAX_REPORT = 512;

/**
 * When each thread's last_message_at was last written. Each write costs the writer about as much as
 * a message, and thread lists order by it only coarsely, so a busy thread is touched once a second.
 */
export function createTouchThrottle(intervalMs = THREAD_TOUCH_MS) {
  const touchedAt = new Map<number, number>();
  return {
    /** Whether thread `id` is written at `at` (recorded as written when it is). */
    due(id: number, at: string): boolean {
      const ms = Date.parse(at);
      if (ms - (touchedAt.get(id) ?? -Infinity) < intervalMs) return false;
      touchedAt.set(id, ms);
      return true;
    },
    clear(): void {
      touchedAt.clear();
    },
  };
}
export type TouchThrottle = ReturnType<typeof createTouchThrottle>;

export interface BatchDeps {
  resolve(item: MessageItem): Promise<Message>;
  touches: Pick<TouchThrottle, 'due'>;
  logger: Pick<Logger, 'error'>;
}

export async function buildBatch(items: readonly Item[], deps: BatchDeps): Promise<Batch> {
  const ready: Ready[] = [];
  const rejected: Array<[MessageItem, HubError]> = [];
  const messages: MessageInsert[] = [];
  const presence = new Map<number, { patch: PresencePatch; at: string }>();
  const touched = new Map<number, string>();
  const byLocalId = new Map<string, Ready>();
  const mergePresence = (userId: number, patch: PresencePatch, at: string) => presence.set(userId, { patch: { ...presence.get(userId)?.patch, ...patch }, at });

  for (const item of items) {
    if (item.kind === 'presence') {
      mergePresence(item.userId, item.patch, item.at);
      continue;
    }
    let message: Message;
    try {
      message = await deps.resolve(item);
    } catch (err) {
      rejected.push([item, err instanceof HubError ? err : Errors.unavailable('could not route the message')]);
      if (!(err instanceof HubError)) deps.logger.error({ err }, 'resolving a message failed');
      continue;
    }
    const entry: Ready = { item, message, audience: audienceOf(message), row: -1 };
    if (item.store) {
      const key = message.local_id === null ? undefined : `${message.sender_id}\u0000${message.local_id}`;
      const first = key === undefined ? undefined : byLocalId.get(key);
      if (first) entry.sameAs = first;
      else {
        entry.row = messages.push({ ...message, payload: JSON.stringify(message.payload) }) - 1;
        if (key !== undefined) byLocalId.set(key, entry);
      }
      if (message.conversation_id !== null) touched.set(message.conversation_id, item.at);
      // Every report an agent sends to everyone says it is alive and what it did last, not only
      // SYSTEM_LOG. A report sent to one person changes nothing: presence goes to every human, and
      // last_report to every caller of the agent lists, so it would leak what only that person may read.
      // A report posted on the agent's behalf says what it did, not that it was there.
      if (isTelemetryType(item.input.type) && item.sender.role === 'AGENT' && message.target_id === null) {
        const last_report = reportLine(item.input.type, item.input.payload, MAX_REPORT);
        mergePresence(item.sender.id, item.input.onBehalf ? { last_report } : { last_report, last_seen_at: item.at }, item.at);
      }
    }
    ready.push(entry);
  }

  const write: WriteBatch = { messages, presence: [], threads: [] };
  for (const [userId, { patch, at }] of presence) write.presence.push({ userId, patch, at });
  for (const [id, at] of touched) if (deps.touches.due(id, at)) write.threads.push({ id, at });
  return { size: items.length, ready, rejected, write };
}

/** Whether a batch has anything to commit (a batch of relays and refusals has not). */
export const needsWrite = (write: WriteBatch): boolean => write.messages.length > 0 || write.presence.length > 0 || write.threads.length > 0;
