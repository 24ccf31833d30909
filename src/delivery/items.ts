// What the pipeline's queue holds: messages (from a socket, an HTTP call or the hub itself) and
// presence changes, each stamped with the time it was queued; and which message types are kept.
import { ChatTypes } from '../protocol/frames.js';
import { ChatRowTypes, TelemetryTypes } from '../protocol/messages.js';
import type { PresencePatch } from '../store/batchWriter.js';
import type { MessageInput, Origin, Principal } from './types.js';

export interface MessageItem {
  kind: 'message';
  sender: Principal;
  input: MessageInput;
  /** Kept as a row; the rest (stream chunks) is relayed only. */
  store: boolean;
  at: string;
  origin?: Origin;
  /** What it weighs against WRITE_QUEUE_MAX_BYTES until its batch is settled (its frame's bytes, or an estimate). */
  bytes: number;
}

export interface PresenceItem {
  kind: 'presence';
  userId: number;
  patch: PresencePatch;
  at: string;
}

export type Item = MessageItem | PresenceItem;

/** Types whose rows are kept (the rest is relayed only). */
const STORED_TYPES = new Set<string>([...ChatRowTypes, ...TelemetryTypes]);
/** Types that belong to a human↔machine conversation thread. */
const THREADED_TYPES = new Set<string>([...ChatTypes, ...ChatRowTypes]);

export const isStoredType = (type: string): boolean => STORED_TYPES.has(type);
export const isThreadedType = (type: string): boolean => THREADED_TYPES.has(type);
