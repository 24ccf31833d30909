// Wire shapes of the objects the HTTP API returns (wire.md §2). services/views.ts builds them from rows.
import type { ChannelKind } from './threads.js';
import type { ActorType, Role } from './roles.js';

export interface UserView {
  id: number;
  username: string;
  role: Role;
  actor_type: ActorType;
  agent_kind: string | null;
  runtime_kind: string | null;
  description: string | null;
  created_at: string;
  status: string;
  online: boolean;
  last_seen_at: string | null;
  last_report: string | null;
  token_hint?: string;
  token_updated_at?: string;
}

export interface PresenceView {
  id: number;
  username: string;
  role: Role;
  status: string;
  online: boolean;
  last_seen_at: string | null;
  last_report: string | null;
}

export interface MessageView {
  id: number;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  target_id?: number;
  type: string;
  payload: unknown;
  timestamp: string;
  /** Top-level copies for the older dashboards. */
  agent_id: string;
  level: string | null;
  content: string;
}

/** A chat history row (wire.md §2 ChatMessage): `payload` is the text (JSON text for AUTH_REQUEST). */
export interface ChatMessageView {
  id: number;
  local_id: string | null;
  conversation_id?: number;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  receiver_id: number | null;
  target_id: number | null;
  type: string;
  payload: string;
  stream_id?: string;
  timestamp: string;
}

export interface ThreadView {
  id: number;
  owner_user_id: number;
  peer_user_id: number;
  channel_kind: ChannelKind;
  title: string;
  summary: string;
  is_pinned: boolean;
  is_default: boolean;
  archived_at: string | null;
  last_message_at: string | null;
  created_at: string;
  updated_at: string;
}

