// Conversation threads (wire.md §2): a human's conversations with one machine peer. Every human has
// one default thread per (peer, kind), created on first use; chat without a conversation_id lands there.
import type { Role } from './roles.js';

export const ChannelKinds = ['butler_direct', 'agent_direct'] as const;
export type ChannelKind = (typeof ChannelKinds)[number];

/** The kind of channel a human has with a peer; undefined when the peer is not a machine. */
export function channelKindFor(peerRole: Role | string): ChannelKind | undefined {
  if (peerRole === 'BUTLER') return 'butler_direct';
  if (peerRole === 'AGENT') return 'agent_direct';
  return undefined;
}

export function defaultThreadTitle(peerName: string): string {
  return `Chat with ${peerName}`;
}
