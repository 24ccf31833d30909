// Dashboard messages over HTTP: ingest (the older `{agent_id, level, content}` form and the typed
// `{type, payload, target_id?}` form) and the filtered, paged query.
import { Errors } from '../errors.js';
import { LogLevels, type TelemetryType, TelemetryTypes } from '../protocol/messages.js';
import { toMessageView, type MessageView } from '../protocol/objects.js';
import { isMachineRole } from '../protocol/roles.js';
import type { MessagesRepo } from '../store/repositories/messages.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { UserRow } from '../store/schema.js';
import type { Clock } from './clock.js';

export interface IngestInput {
  type: TelemetryType;
  payload: unknown;
  target_id?: number;
  /** Username to attribute the message to (the older form's `agent_id`); admins may name an agent. */
  agent_id?: string;
}

export interface MessageQuery {
  agent_id?: string;
  level?: string;
  type?: TelemetryType;
  q?: string;
  before_id?: number;
  offset: number;
  limit: number;
}

const MAX_CONTENT_INDEXED = 4096;

/** The text shown for a message in lists and searched by `q`. */
function summarise(payload: unknown): { level: string; content: string } {
  if (typeof payload === 'string') return { level: 'INFO', content: payload };
  const record = payload as Record<string, unknown>;
  const level = typeof record['level'] === 'string' && (LogLevels as readonly string[]).includes(record['level']) ? record['level'] : 'INFO';
  const content = typeof record['content'] === 'string' ? record['content'] : JSON.stringify(payload).slice(0, MAX_CONTENT_INDEXED);
  return { level, content };
}

export function createMessagesService(deps: { messages: MessagesRepo; users: UsersRepo; clock: Clock }) {
  const { messages, users, clock } = deps;

  async function resolveSender(caller: UserRow, agentId: string | undefined): Promise<UserRow> {
    if (agentId === undefined || agentId === caller.username) return caller;
    if (caller.role !== 'ADMIN') throw Errors.forbidden('only admins may post on behalf of another user (agent_id)');
    const agent = await users.findByUsername(agentId);
    if (!agent || !isMachineRole(agent.role)) throw Errors.notFound('agent');
    return agent;
  }

  return {
    async ingest(caller: UserRow, input: IngestInput): Promise<MessageView> {
      const sender = await resolveSender(caller, input.agent_id);
      if (input.target_id !== undefined && !(await users.findById(input.target_id))) throw Errors.notFound('target user');
      const { level, content } = summarise(input.payload);
      const now = clock();
      const { row } = await messages.insert({
        type: input.type,
        sender_id: sender.id,
        sender_name: sender.username,
        sender_role: sender.role,
        target_id: input.target_id ?? null,
        payload: JSON.stringify(input.payload),
        level,
        content,
        created_at: now,
      });
      if (input.type === 'SYSTEM_LOG' && isMachineRole(sender.role)) {
        await users.update(sender.id, { last_report: content.slice(0, 512), updated_at: now });
      }
      return toMessageView(row);
    },

    async list(viewer: UserRow, query: MessageQuery): Promise<{ items: MessageView[]; total: number }> {
      const { rows, total } = await messages.listDashboard({
        types: query.type ? [query.type] : TelemetryTypes,
        senderName: query.agent_id,
        level: query.level,
        q: query.q,
        beforeId: query.before_id,
        offset: query.offset,
        limit: query.limit,
        visibleTo: viewer.role === 'ADMIN' ? undefined : viewer.id,
      });
      return { items: rows.map(toMessageView), total };
    },
  };
}
export type MessagesService = ReturnType<typeof createMessagesService>;
