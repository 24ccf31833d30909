// Wire shapes of the objects the HTTP API returns (wire.md §2), built from store rows.
import type { MachineCredentialRow, MessageRow, UserRow } from '../store/schema.js';
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
