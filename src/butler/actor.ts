// The Butler actor (systemId 'butler'): the hub's core agent. The router delivers to it like to a
// socket (frames addressed to Butler); it turns each CHAT into a turn of the right conversation,
// one conversation actor per (asker, thread), so many conversations run at once and each one's
// turns stay in order. Agents' answers to Butler's own requests go to the relay instead of
// starting a conversation, and decisions on authorization requests become turns of the
// conversation that asked.
import { assertEvent, createActor, enqueueActions, setup, type AnyActorRef } from 'xstate';
import { BUTLER_STREAM_PREFIX, CANCEL_COMMAND } from '../protocol/butler.js';
import type { MessageFrame } from '../protocol/frames.js';
import type { Role } from '../protocol/roles.js';
import type { AuthorizationRow } from '../store/schema.js';
import { IdleTimers, type IdlePort } from './idleTimers.js';
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
  /** Idle timers of the conversations (a fresh set when not given). */
  idleTimers?: IdlePort;
  /** The hub-wide cap on model calls, for inspection: calls streaming and waiting. */
  modelCalls?: ModelCalls;
}

export interface ModelCalls {
  readonly active: number;
  readonly queued: number;
  readonly max: number;
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
  idleTimers: IdlePort;
  modelCalls?: ModelCalls;
  /** Changed in place by `adopt` and `forget`: a copy per new conversation would cost O(conversations) on a busy hub. */
  conversations: Map<string, ConversationActor>;
  /** Turns handed to conversations since start. */
  turns: number;
  /** Agent frames that were answers to Butler's own requests, or echoes of its streams. */
  claimed: number;
}

const MAX_QUEUED = 20;
export const IDLE_MS = 5 * 60_000;

function senderOf(frame: MessageFrame): Principal {
  return { id: frame.sender_id, username: frame.sender_name, role: frame.sender_role as Role };
}

// Two steps so the decisions can enqueue the effects by name, typed.
const butlerEffects = setup({
  types: {
    context: {} as ButlerContext,
    events: {} as ButlerEvent,
    input: {} as ButlerInput,
  },
  // Effects on the conversations: run after the step, in the order enqueued.
  actions: {
    /** Registers and starts a conversation created by this step, before its first turn is delivered. */
    adopt: ({ context, self }, { key, actor }: Adoption) => {
      const ended: ButlerEvent = { type: 'CONVERSATION_ENDED', key, actor };
      actor.subscribe({ complete: () => self.send(ended) });
      context.conversations.set(key, actor);
      actor.start();
    },
    forget: ({ context, event }) => {
      assertEvent(event, 'CONVERSATION_ENDED');
      // A newer conversation under the same key stays.
      if (context.conversations.get(event.key) === event.actor) context.conversations.delete(event.key);
    },
  },
});

const butlerSetup = butlerEffects.extend({
  // Decisions, from which the effects above are enqueued.
  actions: {
    // Conversations hear of a turn through sendTo, which XState delivers after this step: a turn
    // never runs inside the router's delivery or Butler's own transition.
    receive: butlerEffects.createAction(
      enqueueActions(({ context, event, self, enqueue }) => {
        assertEvent(event, 'INBOUND');
        const { frame } = event;
        // Butler answers stored CHAT addressed to it; chunks of an agent's stream end in such a CHAT.
        if (frame.type !== 'CHAT' || frame.id === undefined || frame.target_id !== context.butler.id) return;
        if (frame.sender_role === 'AGENT') {
          // An answer to a directive or question, or an agent echoing Butler's own words back:
          // neither is a new request, or an echoing agent and Butler would talk forever.
          if (context.claimAnswer(frame) || frame.stream_id?.startsWith(BUTLER_STREAM_PREFIX)) {
            enqueue.assign({ claimed: ({ context }) => context.claimed + 1 });
            return;
          }
        }
        const text = typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload);
        const asker: Asker = { principal: senderOf(frame), conversationId: frame.conversation_id ?? null };
        const turn = { kind: 'message' as const, message: { id: frame.id, text, sender: asker.principal, conversationId: asker.conversationId } };
        enqueue.assign({ turns: ({ context }) => context.turns + 1 });
        const conversation = conversationFor(context, asker, self);
        if (conversation.adopt) enqueue({ type: 'adopt', params: conversation.adopt });
        enqueue.sendTo(conversation.actor, text.trim() === CANCEL_COMMAND ? { type: 'CANCEL', turn } : { type: 'TURN', turn });
      }),
    ),
    decided: butlerEffects.createAction(
      enqueueActions(({ context, event, self, enqueue }) => {
        assertEvent(event, 'DECIDED');
        const asker: Asker = { principal: event.requester, conversationId: event.request.conversation_id };
        const turn: Turn = { kind: 'decision', request: event.request };
        enqueue.assign({ turns: ({ context }) => context.turns + 1 });
        const conversation = conversationFor(context, asker, self);
        if (conversation.adopt) enqueue({ type: 'adopt', params: conversation.adopt });
        enqueue.sendTo(conversation.actor, { type: 'TURN', turn });
      }),
    ),
    stopAll: butlerEffects.createAction(
      enqueueActions(({ context, enqueue }) => {
        for (const conversation of context.conversations.values()) enqueue.sendTo(conversation, { type: 'END' });
        enqueue.assign({ conversations: () => new Map<string, ConversationActor>() });
      }),
    ),
  },
});

export const butlerMachine = butlerSetup.createMachine({
  id: 'butler',
  context: ({ input }) => ({
    butler: input.butler,
    ports: input.ports,
    claimAnswer: input.claimAnswer,
    maxQueued: input.maxQueued ?? MAX_QUEUED,
    idleMs: input.idleMs ?? IDLE_MS,
    idleTimers: input.idleTimers ?? new IdleTimers(),
    modelCalls: input.modelCalls,
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

export interface Adoption {
  key: string;
  actor: ConversationActor;
}

/**
 * The live conversation for this asker, or a new one (created, not started: `adopt` starts it).
 * Conversations join Butler's actor system with Butler as parent but are not spawned into its
 * snapshot: spawning copies the children on every spawn, which a busy hub pays for per conversation.
 */
function conversationFor(context: ButlerContext, asker: Asker, self: AnyActorRef): { actor: ConversationActor; adopt?: Adoption } {
  const key = conversationKey(asker);
  const existing = context.conversations.get(key);
  if (existing && existing.getSnapshot().status === 'active') return { actor: existing };
  const actor = createActor(conversationMachine, {
    parent: self,
    input: { key, asker, ports: context.ports, maxQueued: context.maxQueued, idleMs: context.idleMs, idle: context.idleTimers },
  });
  return { actor, adopt: { key, actor } };
}
