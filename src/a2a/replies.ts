// What an agent answers to an A2A caller, picked out of the hub's deliveries. While a caller has
// tasks waiting, an endpoint inside the hub is bound for that user (as Butler's is); it hears the
// frames addressed to the caller and hands each agent's answer to the waiting task of the same
// agent and conversation thread, oldest first (older agents echo nothing that names a task, so
// thread and order decide). A stream belongs to the task that got its first chunk; Butler's
// authorization requests and their outcomes go to the task whose turn asked for them.
import type { Endpoint, Principal } from '../delivery/types.js';
import type { MessageFrame } from '../protocol/frames.js';

export type AuthOutcome = 'APPROVED' | 'REJECTED' | 'EXPIRED';

/**
 * What a waiting task hears, in order. `answer`, `streamEnded` and `authDecided` say whether the task
 * ended (it stops waiting then): Butler's answer that a command waits for approval does not end it.
 */
export interface ReplyListener {
  chunk(text: string, streamId: string): void;
  /** The agent's stored answer (a stream's final CHAT, or a plain one). */
  answer(text: string): boolean;
  /** A stream ended without its final CHAT. */
  streamEnded(streamId: string): boolean;
  /** Butler asks a human to approve a command for this task. */
  authRequired(text: string): void;
  authDecided(outcome: AuthOutcome): boolean;
}

export interface Waiter {
  /** Stops listening (the task ended, was cancelled, or its call gave up). */
  stop(): void;
}

interface Waiting {
  readonly agentId: number;
  readonly conversationId: number | null;
  readonly listener: ReplyListener;
  streams: Set<string>;
  /** Streams whose final CHAT came (their end marker is then no failure). */
  answered: Set<string>;
  actions: Set<string>;
}

interface CallerState {
  endpoint: Endpoint;
  queue: Waiting[];
}

export interface RouterPort {
  send(event: { type: 'BIND'; endpoint: Endpoint } | { type: 'UNBIND'; endpoint: Endpoint }): void;
}

/** Keys of the endpoints this module binds: negative and far from sockets' and the connector's. */
const KEY_BASE = -(2 ** 40);

function textOf(payload: unknown): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload ?? '');
}

function authPayload(payload: unknown): { action_id?: unknown; command?: unknown; reason?: unknown; target_agent_name?: unknown; status?: unknown } {
  if (typeof payload === 'object' && payload !== null) return payload as Record<string, unknown>;
  if (typeof payload === 'string') {
    try {
      const parsed = JSON.parse(payload) as unknown;
      if (typeof parsed === 'object' && parsed !== null) return parsed as Record<string, unknown>;
    } catch {
      // not JSON: no fields
    }
  }
  return {};
}

export function createReplyTracker(deps: { router: RouterPort }) {
  const callers = new Map<number, CallerState>();
  let keys = 0;

  function release(userId: number, waiting: Waiting): void {
    const state = callers.get(userId);
    if (!state) return;
    const at = state.queue.indexOf(waiting);
    if (at >= 0) state.queue.splice(at, 1);
    if (state.queue.length > 0) return;
    callers.delete(userId);
    deps.router.send({ type: 'UNBIND', endpoint: state.endpoint });
  }

  /** The waiting task this frame is for: the stream's or action's owner, else the oldest in its thread. */
  function claim(state: CallerState, frame: MessageFrame): Waiting | undefined {
    const from = state.queue.filter((w) => w.agentId === frame.sender_id);
    const streamId = frame.stream_id ?? undefined;
    if (streamId !== undefined) {
      const owner = from.find((w) => w.streams.has(streamId));
      if (owner) return owner;
    }
    const conversationId = frame.conversation_id ?? null;
    return from.find((w) => w.conversationId === conversationId) ?? (conversationId === null ? from[0] : undefined);
  }

  function onFrame(user: Principal, frame: MessageFrame | undefined, id: number | undefined): void {
    const state = callers.get(user.id);
    if (!state || !frame || frame.target_id !== user.id || frame.sender_id === user.id) return;
    switch (frame.type) {
      case 'CHAT_STREAM': {
        const waiting = claim(state, frame);
        if (!waiting || !frame.stream_id) return;
        waiting.streams.add(frame.stream_id);
        waiting.listener.chunk(textOf(frame.payload), frame.stream_id);
        return;
      }
      case 'CHAT': {
        // Only stored rows answer: a relayed copy has no id.
        const waiting = id === undefined ? undefined : claim(state, frame);
        if (!waiting) return;
        if (frame.stream_id) waiting.answered.add(frame.stream_id);
        if (waiting.listener.answer(textOf(frame.payload))) release(user.id, waiting);
        return;
      }
      case 'CHAT_STREAM_END': {
        const streamId = frame.stream_id;
        const waiting = streamId ? state.queue.find((w) => w.streams.has(streamId)) : undefined;
        if (!waiting || !streamId || waiting.answered.has(streamId)) return;
        if (waiting.listener.streamEnded(streamId)) release(user.id, waiting);
        return;
      }
      case 'AUTH_REQUEST': {
        const waiting = claim(state, frame);
        const request = authPayload(frame.payload);
        if (!waiting || typeof request.action_id !== 'string') return;
        waiting.actions.add(request.action_id);
        const command = typeof request.command === 'string' ? request.command : '';
        const agent = typeof request.target_agent_name === 'string' ? request.target_agent_name : 'an agent';
        const reason = typeof request.reason === 'string' && request.reason ? ` (${request.reason})` : '';
        waiting.listener.authRequired(`Butler asks a human to approve sending ${agent} the command "${command}"${reason}.`);
        return;
      }
      case 'AUTH_STATUS_UPDATE': {
        const update = authPayload(frame.payload);
        const waiting = typeof update.action_id === 'string' ? state.queue.find((w) => w.actions.has(update.action_id as string)) : undefined;
        if (!waiting || (update.status !== 'APPROVED' && update.status !== 'REJECTED' && update.status !== 'EXPIRED')) return;
        if (waiting.listener.authDecided(update.status)) release(user.id, waiting);
        return;
      }
      default:
        return;
    }
  }

  return {
    /** Listens for `agentId`'s answer to `caller` in `conversationId` (call before sending the message). */
    wait(caller: Principal, agentId: number, conversationId: number | null, listener: ReplyListener): Waiter {
      let state = callers.get(caller.id);
      if (!state) {
        const endpoint: Endpoint = {
          key: KEY_BASE - ++keys,
          user: caller,
          inHub: true,
          deliver: (_text, id, frame) => onFrame(caller, frame, id),
          // The caller's sessions are revoked (deleted, role changed): its tasks stop hearing answers.
          close: () => {
            const current = callers.get(caller.id);
            if (current?.endpoint !== endpoint) return;
            callers.delete(caller.id);
            deps.router.send({ type: 'UNBIND', endpoint });
          },
        };
        state = { endpoint, queue: [] };
        callers.set(caller.id, state);
        deps.router.send({ type: 'BIND', endpoint });
      }
      const waiting: Waiting = { agentId, conversationId, listener, streams: new Set(), answered: new Set(), actions: new Set() };
      state.queue.push(waiting);
      return { stop: () => release(caller.id, waiting) };
    },

    /** Callers with tasks waiting, and the tasks (inspection, tests). */
    get waiting(): number {
      let n = 0;
      for (const state of callers.values()) n += state.queue.length;
      return n;
    },
  };
}
export type ReplyTracker = ReturnType<typeof createReplyTracker>;
