// One of Butler's conversations (one asker, one thread): its turns are answered one at a time, in
// order. A message that arrives while Butler is answering waits in the queue and is answered next;
// past `maxQueued` it is turned away at once. `/cancel` aborts the answer in progress and drops the
// queue, and END (Butler stopping or reset) aborts it too. The answer is a promise started on
// entering `answering` that reports back with ANSWERED or ANSWER_FAILED, rather than an invoked
// promise actor: an actor and an abort controller fewer per answer. A conversation left idle ends,
// and Butler forgets it; its idle timer is a port (idleTimers.ts), not a delayed transition, which
// would sit in XState's system-wide scheduler.
import { assertEvent, assign, setup, type ActorRefFrom } from 'xstate';
import { TurnCancelled } from './brain.js';
import type { IDLE_EXPIRED, IdlePort } from './idleTimers.js';
import type { Asker } from './tools.js';
import type { Turn } from './turns.js';

export interface ConversationPorts {
  /** Answers one turn; resolves when its stream has ended. */
  answer(turn: Turn, asker: Asker, signal: AbortSignal): Promise<void>;
  /** Tells the asker a message was not queued (the queue is full). */
  refuse(asker: Asker, queued: number): void;
  /** An answer rejected instead of ending its stream (a bug: it is logged and the queue goes on). */
  failed(error: unknown, asker: Asker): void;
}

export interface ConversationInput {
  key: string;
  asker: Asker;
  ports: ConversationPorts;
  maxQueued: number;
  /** How long an idle conversation is kept. */
  idleMs: number;
  /** Sends IDLE once `idleMs` have passed in idle. */
  idle: IdlePort;
}

export interface ConversationContext extends ConversationInput {
  queue: Turn[];
  current: Turn | null;
  /** Aborts the answer in progress on `/cancel`. */
  cancel: AbortController | null;
  answered: number;
}

export type ConversationEvent =
  | { type: 'TURN'; turn: Turn }
  | { type: 'CANCEL'; turn: Extract<Turn, { kind: 'message' }> }
  /** Butler is stopping or was reset: the answer in progress is aborted (it still ends its stream). */
  | { type: 'END' }
  /** The answer in progress ended its stream. */
  | { type: 'ANSWERED' }
  /** The answer in progress rejected instead (a bug: it is logged and the queue goes on). */
  | { type: 'ANSWER_FAILED'; error: unknown }
  | typeof IDLE_EXPIRED;

const conversationSetup = setup({
  types: {
    context: {} as ConversationContext,
    events: {} as ConversationEvent,
    input: {} as ConversationInput,
  },
  guards: {
    queueFull: ({ context }) => context.queue.length >= context.maxQueued,
    hasQueued: ({ context }) => context.queue.length > 0,
  },
  actions: {
    /** Starts answering the current turn; the outcome comes back as an event (none once the conversation is done). */
    runAnswer: ({ context, self }) => {
      const report = (event: ConversationEvent) => {
        if (self.getSnapshot().status === 'active') self.send(event);
      };
      context.ports.answer(context.current!, context.asker, context.cancel!.signal).then(
        () => report({ type: 'ANSWERED' }),
        (error: unknown) => report({ type: 'ANSWER_FAILED', error }),
      );
    },
    /** Butler stops or resets: the answer in progress ends its stream, saying so. */
    stopCurrent: ({ context }) => context.cancel?.abort(new Error('Butler is stopping')),
    // Each turn gets its own cancel, set with the turn in one assign (a context copy per assign).
    start: assign(({ event }) => {
      assertEvent(event, ['TURN', 'CANCEL']);
      // A cancel with nothing in progress is answered at once, saying there was nothing to stop.
      const current = event.type === 'CANCEL' ? { ...event.turn, cancelled: { inProgress: false, dropped: 0 } } : event.turn;
      return { current, cancel: new AbortController() };
    }),
    enqueue: assign({
      queue: ({ context, event }) => {
        assertEvent(event, 'TURN');
        return [...context.queue, event.turn];
      },
    }),
    finishTurn: assign({ current: null, cancel: null, answered: ({ context }) => context.answered + 1 }),
    /** Counts the turn answered and takes the next one from the queue. */
    finishAndTakeNext: assign(({ context }) => ({
      current: context.queue[0] ?? null,
      queue: context.queue.slice(1),
      cancel: new AbortController(),
      answered: context.answered + 1,
    })),
    reportFailure: ({ context }, { error }: { error: unknown }) => context.ports.failed(error, context.asker),
    refuseBusy: ({ context }) => context.ports.refuse(context.asker, context.queue.length),
    watchIdle: ({ context, self }) => context.idle.watch(self, context.idleMs),
    unwatchIdle: ({ context, self }) => context.idle.unwatch(self),
    /** Aborts the answer in progress; it ends its stream saying so. */
    abortCurrent: ({ context }) => context.cancel?.abort(new TurnCancelled('cancelled by the asker')),
    /** The queue is dropped; the cancel message itself is answered next, saying what it stopped. */
    replaceQueue: assign(({ context, event }) => {
      assertEvent(event, 'CANCEL');
      return { queue: [{ ...event.turn, cancelled: { inProgress: true, dropped: context.queue.length } }] };
    }),
  },
});

/** The failure the answer rejected with (ANSWER_FAILED), for `reportFailure`. */
const failure = { type: 'reportFailure', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) } as const;

export const conversationMachine = conversationSetup.createMachine({
  id: 'conversation',
  context: ({ input }) => ({ ...input, queue: [], current: null, cancel: null, answered: 0 }),
  initial: 'idle',
  on: { END: { target: '.done', actions: 'stopCurrent' } },
  states: {
    idle: {
      entry: 'watchIdle',
      exit: 'unwatchIdle',
      on: {
        IDLE: 'done',
        TURN: { target: 'answering', actions: 'start' },
        CANCEL: { target: 'answering', actions: 'start' },
      },
    },
    answering: {
      entry: 'runAnswer',
      on: {
        // The next queued turn starts at once (re-entering starts its answer), else the conversation waits idle.
        ANSWERED: [
          { guard: 'hasQueued', target: 'answering', reenter: true, actions: 'finishAndTakeNext' },
          { target: 'idle', actions: 'finishTurn' },
        ],
        ANSWER_FAILED: [
          { guard: 'hasQueued', target: 'answering', reenter: true, actions: [failure, 'finishAndTakeNext'] },
          { target: 'idle', actions: [failure, 'finishTurn'] },
        ],
        TURN: [{ guard: 'queueFull', actions: 'refuseBusy' }, { actions: 'enqueue' }],
        CANCEL: { actions: ['abortCurrent', 'replaceQueue'] },
      },
    },
    done: { type: 'final' },
  },
});

export type ConversationActor = ActorRefFrom<typeof conversationMachine>;
