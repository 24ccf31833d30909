// Wire shapes of the objects the HTTP API returns (wire.md §2), built from store rows.
import type { MachineCredentialRow, MessageRow, ThreadRow, UserRow } from '../store/schema.js';
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

export function toUserView(row: UserRow, credential?: Pick<MachineCredentialRow, 'token_hint' | 'token_updated_at'>): UserView {
  const view: UserView = {
    id: row.id,
    username: row.username,
    role: row.role as Role,
    actor_type: row.actor_type as ActorType,
    agent_kind: row.agent_kind,
    runtime_kind: row.runtime_kind,
    description: row.description,
    created_at: row.created_at,
    status: row.status,
    online: row.online === 1,
    last_seen_at: row.last_seen_at,
    last_report: row.last_report,
  };
  if (credential) {
    view.token_hint = credential.token_hint;
    view.token_updated_at = credential.token_updated_at;
  }
  return view;
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

export function toPresenceView(row: UserRow): PresenceView {
  return {
    id: row.id,
    username: row.username,
    role: row.role as Role,
    status: row.status,
    online: row.online === 1,
    last_seen_at: row.last_seen_at,
    last_report: row.last_report,
  };
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

export function toMessageView(row: MessageRow): MessageView {
  const view: MessageView = {
    id: row.id,
    sender_id: row.sender_id,
    sender_name: row.sender_name,
    sender_role: row.sender_role,
    type: row.type,
    payload: JSON.parse(row.payload) as unknown,
    timestamp: row.created_at,
    agent_id: row.sender_name,
    level: row.level,
    content: row.content,
  };
  if (row.target_id !== null) view.target_id = row.target_id;
  return view;
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

export function toChatMessageView(row: MessageRow): ChatMessageView {
  const parsed = JSON.parse(row.payload) as unknown;
  const view: ChatMessageView = {
    id: row.id,
    local_id: row.local_id,
    sender_id: row.sender_id,
    sender_name: row.sender_name,
    sender_role: row.sender_role,
    receiver_id: row.target_id,
    target_id: row.target_id,
    type: row.type,
    payload: typeof parsed === 'string' ? parsed : JSON.stringify(parsed),
    timestamp: row.created_at,
  };
  if (row.conversation_id !== null) view.conversation_id = row.conversation_id;
  if (row.stream_id !== null) view.stream_id = row.stream_id;
  return view;
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

export function toThreadView(row: ThreadRow): ThreadView {
  return {
    id: row.id,
    owner_user_id: row.owner_user_id,
    peer_user_id: row.peer_user_id,
    channel_kind: row.channel_kind as ChannelKind,
    title: row.title,
    summary: row.summary,
    is_pinned: row.is_pinned === 1,
    is_default: row.is_default === 1,
    archived_at: row.archived_at,
    last_message_at: row.last_message_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
