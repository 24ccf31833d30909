// The Butler actor (systemId 'butler'): the hub's core agent. The router delivers to it like to a
// socket (frames addressed to Butler); it turns each CHAT into a turn of the right conversation,
// one conversation actor per (asker, thread), so many conversations run at once and each one's
// turns stay in order. Agents' answers to Butler's own requests go to the relay instead of
// starting a conversation, and decisions on authorization requests become turns of the
// conversation that asked.
import { createActor, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { BUTLER_STREAM_PREFIX, CANCEL_COMMAND } from '../protocol/butler.js';
import type { MessageFrame } from '../protocol/frames.js';
import type { Role } from '../protocol/roles.js';
import type { AuthorizationRow } from '../store/schema.js';
import { conversationMachine, type ConversationActor, type ConversationPorts } from './conversation.js';
import type { Asker } from './tools.js';
import { conversationKey, type Turn } from './turns.js';
import type { Principal } from '../delivery/types.js';

export interface ButlerInput {
  butler: Principal;
  ports: ConversationPorts;
  /** Takes an agent's CHAT as the answer to one of Butler's requests; false when it answers none. */
  claimAnswer(frame: MessageFrame): boolean;
  maxQueued?: number;
  idleMs?: number;
}

export type ButlerEvent =
  | { type: 'INBOUND'; frame: MessageFrame }
  | { type: 'DECIDED'; request: AuthorizationRow; requester: Principal }
  | { type: 'CONVERSATION_ENDED'; key: string; actor: ConversationActor }
  /** A dev reset wiped the store: every conversation is dropped. */
  | { type: 'RESET' }
  | { type: 'SHUTDOWN' };

export interface ButlerContext {
  butler: Principal;
  ports: ConversationPorts;
  claimAnswer(frame: MessageFrame): boolean;
  maxQueued: number;
  idleMs: number;
  conversations: Map<string, ConversationActor>;
  /** Turns handed to conversations since start. */
  turns: number;
  /** Agent frames that were answers to Butler's own requests, or echoes of its streams. */
  claimed: number;
}

const MAX_QUEUED = 20;
const IDLE_MS = 5 * 60_000;

function senderOf(frame: MessageFrame): Principal {
  return { id: frame.sender_id, username: frame.sender_name, role: frame.sender_role as Role };
}

export const butlerMachine = setup({
  types: {
    context: {} as ButlerContext,
    events: {} as ButlerEvent,
    input: {} as ButlerInput,
  },
  actions: {
    // Conversations hear of a turn through sendTo, which XState delivers after this step: a turn
    // never runs inside the router's delivery or Butler's own transition.
    receive: enqueueActions(({ context, event, self, enqueue }) => {
      if (event.type !== 'INBOUND') return;
      const { frame } = event;
      // Butler answers stored CHAT addressed to it; chunks of an agent's stream end in such a CHAT.
      if (frame.type !== 'CHAT' || frame.id === undefined || frame.target_id !== context.butler.id) return;
      if (frame.sender_role === 'AGENT') {
        // An answer to a directive or question, or an agent echoing Butler's own words back:
        // neither is a new request, or an echoing agent and Butler would talk forever.
        if (context.claimAnswer(frame) || frame.stream_id?.startsWith(BUTLER_STREAM_PREFIX)) {
          context.claimed++;
          return;
        }
      }
      const text = typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload);
      const asker: Asker = { principal: senderOf(frame), conversationId: frame.conversation_id ?? null };
      const turn = { kind: 'message' as const, message: { id: frame.id, text, sender: asker.principal, conversationId: asker.conversationId } };
      context.turns++;
      enqueue.sendTo(conversationFor(context, asker, self), text.trim() === CANCEL_COMMAND ? { type: 'CANCEL', turn } : { type: 'TURN', turn });
    }),
    decided: enqueueActions(({ context, event, self, enqueue }) => {
      if (event.type !== 'DECIDED') return;
      const asker: Asker = { principal: event.requester, conversationId: event.request.conversation_id };
      const turn: Turn = { kind: 'decision', request: event.request };
      context.turns++;
      enqueue.sendTo(conversationFor(context, asker, self), { type: 'TURN', turn });
    }),
    forget: ({ context, event }) => {
      if (event.type !== 'CONVERSATION_ENDED') return;
      // A newer conversation under the same key stays.
      if (context.conversations.get(event.key) === event.actor) context.conversations.delete(event.key);
    },
    stopAll: enqueueActions(({ context, enqueue }) => {
      for (const conversation of context.conversations.values()) enqueue.sendTo(conversation, { type: 'END' });
      context.conversations.clear();
    }),
  },
}).createMachine({
  id: 'butler',
  context: ({ input }) => ({
    butler: input.butler,
    ports: input.ports,
    claimAnswer: input.claimAnswer,
    maxQueued: input.maxQueued ?? MAX_QUEUED,
    idleMs: input.idleMs ?? IDLE_MS,
    conversations: new Map(),
    turns: 0,
    claimed: 0,
  }),
  initial: 'running',
  states: {
    running: {
      on: {
        INBOUND: { actions: 'receive' },
        DECIDED: { actions: 'decided' },
        CONVERSATION_ENDED: { actions: 'forget' },
        RESET: { actions: 'stopAll' },
        SHUTDOWN: { target: 'stopped', actions: 'stopAll' },
      },
    },
    // Answers in progress were aborted (each ends its stream saying so); nothing new starts.
    stopped: { type: 'final' },
  },
});

/**
 * The live conversation for this asker, or a new one. Conversations join Butler's actor system
 * with Butler as parent but are not spawned into its snapshot: spawning copies the children on
 * every spawn, which a busy hub pays for per conversation.
 */
function conversationFor(context: ButlerContext, asker: Asker, self: AnyActorRef): ConversationActor {
  const key = conversationKey(asker);
  const existing = context.conversations.get(key);
  if (existing && existing.getSnapshot().status === 'active') return existing;
  const actor = createActor(conversationMachine, {
    parent: self,
    input: { key, asker, ports: context.ports, maxQueued: context.maxQueued, idleMs: context.idleMs },
  });
  const ended: ButlerEvent = { type: 'CONVERSATION_ENDED', key, actor };
  actor.subscribe({ complete: () => self.send(ended) });
  context.conversations.set(key, actor);
  actor.start();
  return actor;
}
