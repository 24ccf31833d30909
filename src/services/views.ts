// Store rows → the wire views of the HTTP API (protocol/objects.ts): users with the token hints of
// machine users, presence, messages, chat messages and threads.
import type { ChatMessageView, MessageView, PresenceView, ThreadView, UserView } from '../protocol/objects.js';
import { isMachineRole, type ActorType, type Role } from '../protocol/roles.js';
import type { ChannelKind } from '../protocol/threads.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { MachineCredentialRow, MessageRow, ThreadRow, UserRow } from '../store/schema.js';

/** Many users' views with their token hints, in one query. */
export async function toUserViews(rows: UserRow[], credentials: CredentialsRepo): Promise<UserView[]> {
  const machineIds = rows.filter((r) => isMachineRole(r.role)).map((r) => r.id);
  const hints = new Map((await credentials.machinesOf(machineIds)).map((c) => [c.user_id, c]));
  return rows.map((r) => toUserView(r, hints.get(r.id)));
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

export function toMessageView(row: MessageRow): MessageView {
  return messageView(row, JSON.parse(row.payload) as unknown);
}

/** The same view of a message whose payload is at hand already parsed (one the pipeline just stored). */
export function messageView(row: Omit<MessageRow, 'payload'>, payload: unknown): MessageView {
  const view: MessageView = {
    id: row.id,
    sender_id: row.sender_id,
    sender_name: row.sender_name,
    sender_role: row.sender_role,
    type: row.type,
    payload,
    timestamp: row.created_at,
    agent_id: row.sender_name,
    level: row.level,
    content: row.content,
  };
  if (row.target_id !== null) view.target_id = row.target_id;
  return view;
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
