// Dashboard messages over HTTP: ingest (the older `{agent_id, level, content}` form and the typed
// `{type, payload, target_id?}` form) and the filtered, paged query.
import { Errors } from '../errors.js';
import { type TelemetryType, TelemetryTypes } from '../protocol/messages.js';
import type { MessageView } from '../protocol/objects.js';
import { isMachineRole } from '../protocol/roles.js';
import type { MessagesRepo } from '../store/repositories/messages.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { UserRow } from '../store/schema.js';
import { toPrincipal } from '../delivery/directory.js';
import { estimateBytes, type Pipeline } from '../delivery/pipeline.js';
import { messageView, toMessageView } from './views.js';

export interface IngestInput {
  type: TelemetryType;
  payload: unknown;
  target_id?: number;
  /** Username to attribute the message to (the older form's `agent_id`); admins may name an agent (never Butler). */
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

export function createMessagesService(deps: { messages: MessagesRepo; users: UsersRepo; pipeline: Pipeline }) {
  const { messages, users, pipeline } = deps;

  async function resolveSender(caller: UserRow, agentId: string | undefined): Promise<UserRow> {
    if (agentId === undefined || agentId === caller.username) return caller;
    if (caller.role !== 'ADMIN') throw Errors.forbidden('only admins may post on behalf of another user (agent_id)');
    const agent = await users.findByUsername(agentId);
    if (agent?.role === 'BUTLER') throw Errors.actingAsButler();
    if (!agent || !isMachineRole(agent.role)) throw Errors.notFound('agent');
    return agent;
  }

  return {
    /** Stores the message and delivers it live like the same frame over the WebSocket. */
    async ingest(caller: UserRow, input: IngestInput): Promise<MessageView> {
      const sender = await resolveSender(caller, input.agent_id);
      const weighed = { type: input.type, payload: input.payload, target_id: input.target_id, onBehalf: sender.id !== caller.id };
      if (!pipeline.admit(estimateBytes(weighed))) throw Errors.writeQueueFull();
      const { frame, message, stored } = await pipeline.post(toPrincipal(sender), weighed);
      // Telemetry is always stored; the answer shows the payload as delivered (with the hub's fields).
      if (!stored) throw Errors.unavailable('the message was not stored');
      return messageView({ ...message, id: stored.id }, frame.payload);
    },

    /** `total` counts at most TOTAL_COUNT_CAP rows; `capped`: more match. */
    async list(viewer: UserRow, query: MessageQuery): Promise<{ items: MessageView[]; total: number; capped: boolean }> {
      const { rows, total, capped } = await messages.listDashboard({
        types: query.type ? [query.type] : TelemetryTypes,
        senderName: query.agent_id,
        level: query.level,
        q: query.q,
        beforeId: query.before_id,
        offset: query.offset,
        limit: query.limit,
        visibleTo: viewer.role === 'ADMIN' ? undefined : viewer.id,
      });
      return { items: rows.map(toMessageView), total, capped };
    },
  };
}
export type MessagesService = ReturnType<typeof createMessagesService>;
