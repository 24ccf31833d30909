// Conversation threads (wire.md §2): a human's conversations with one machine peer. Every human has
// one default thread per (peer, kind), created by the first chat message between them (never by a
// read); chat without a conversation_id lands there.
import type { Role } from './roles.js';

export const ChannelKinds = ['butler_direct', 'agent_direct'] as const;
export type ChannelKind = (typeof ChannelKinds)[number];

/** The kind of channel a human has with a peer; undefined when the peer is not a machine. */
export function channelKindFor(peerRole: Role | string): ChannelKind | undefined {
  if (peerRole === 'BUTLER') return 'butler_direct';
  if (peerRole === 'AGENT') return 'agent_direct';
  return undefined;
}

/** The older hub's titles, which its dashboards show as they are: `Butler`, `<agent> chat`. */
export function defaultThreadTitle(kind: ChannelKind, peerName: string): string {
  return kind === 'butler_direct' ? 'Butler' : `${peerName} chat`;
}
