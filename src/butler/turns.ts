// A turn is one thing Butler answers in a conversation: a message someone sent it, or the outcome
// of an authorization request made in that conversation.
import type { AuthorizationRow } from '../store/schema.js';
import type { Asker } from './tools.js';
import type { Principal } from '../delivery/types.js';

export interface InboundChat {
  /** The stored id of the message (history for the model ends before it). */
  id: number;
  text: string;
  sender: Principal;
  conversationId: number | null;
}

export type Turn =
  | {
      kind: 'message';
      message: InboundChat;
      /** Set on a `/cancel` message: what it stopped. */
      cancelled?: { inProgress: boolean; dropped: number };
    }
  | { kind: 'decision'; request: AuthorizationRow };

/** Turns of one conversation are answered one at a time, in order: one key per conversation. */
export function conversationKey(asker: Asker): string {
  return `${asker.principal.id}:${asker.conversationId ?? '-'}`;
}
