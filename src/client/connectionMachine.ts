// The client's connection lifecycle:
//   idle → connecting → open → (closed by the hub) → waiting → connecting … → stopped
// A socket that fails before it opens is probed over HTTP once (an upgrade refusal has no readable
// status in a browser), so a refused token stops the client instead of retrying forever. The machine
// does no I/O itself: opening and closing the socket, probing and reporting are named effects the
// client provides, and tests swap them with `provide`. Observers read the state and `status` line
// from snapshots.
import { assign, fromPromise, setup } from 'xstate';
import { backoffDelay, decideOnClose } from './closeCodes.js';

export type ConnectionState = 'idle' | 'connecting' | 'probing' | 'open' | 'waiting' | 'closing' | 'stopped';

/** The outcome of probing the hub after a socket failed to open. */
export interface ProbeResult {
  verdict: 'refused' | 'unreachable' | 'retry';
  /** One readable line: what the hub said, or why it could not be reached. */
  message: string;
}

export interface ReconnectOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A connection open this long counts as healthy: the next failure starts the backoff afresh. */
  stableAfterMs: number;
}

export interface ConnectionInput {
  reconnect: ReconnectOptions | false;
  /** The token comes from a function: an expired session can be renewed by reconnecting. */
  refreshable: boolean;
  random?: () => number;
}

export interface ConnectionContext {
  reconnect: ReconnectOptions | false;
  refreshable: boolean;
  random: () => number;
  /** Failed attempts since the last healthy connection. */
  attempt: number;
  /** The line that explains the current state. */
  status: string;
  /** How long `waiting` waits. */
  delayMs: number;
  /** Why the client stopped, when it stopped for a reason of the hub's. */
  stopReason?: string;
}

export type ConnectionEvent = { type: 'CONNECT' } | { type: 'OPENED' } | { type: 'CLOSED'; code: number; reason: string } | { type: 'CLOSE' };

/** Shortest wait before a retry, so a hub that accepts and closes at once is not hammered. */
const FLOOR_MS = 100;

function delayFor(context: ConnectionContext): number {
  if (!context.reconnect) return 0;
  return backoffDelay(context.attempt, { initialMs: context.reconnect.initialDelayMs, maxMs: context.reconnect.maxDelayMs, floorMs: FLOOR_MS }, context.random);
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export const clientConnectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionInput,
  },
  actors: {
    /** Asks the hub over HTTP why the socket did not open. Provided by the client. */
    probe: fromPromise<ProbeResult>(async () => ({ verdict: 'retry', message: 'no probe' })),
  },
  guards: {
    reconnects: ({ context }) => context.reconnect !== false,
    /** The close code allows a reconnect (and reconnecting is switched on). */
    closeAllowsReconnect: ({ context }, params: { code: number; reason: string }) =>
      context.reconnect !== false && decideOnClose(params.code, params.reason, context.refreshable).verdict === 'reconnect',
    refused: (_, params: { result: ProbeResult }) => params.result.verdict === 'refused',
  },
  delays: {
    backoff: ({ context }) => context.delayMs,
    stable: ({ context }) => (context.reconnect ? context.reconnect.stableAfterMs : 0),
  },
  actions: {
    // Effects, provided by the client.
    openSocket: () => undefined,
    closeSocket: () => undefined,
    /** The socket is open: resend what is unacknowledged, then what was queued. */
    opened: () => undefined,
    /** Stopped for good: pending sends fail with context.stopReason. */
    stopped: () => undefined,
  },
}).createMachine({
  id: 'hubClient',
  context: ({ input }) => ({
    reconnect: input.reconnect,
    refreshable: input.refreshable,
    random: input.random ?? Math.random,
    attempt: 0,
    status: 'not connected',
    delayMs: 0,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        CONNECT: { target: 'connecting', actions: assign({ status: 'connecting' }) },
        CLOSE: { target: 'stopped', actions: assign({ status: 'closed by the client' }) },
      },
    },
    connecting: {
      entry: 'openSocket',
      on: {
        OPENED: 'open',
        CLOSED: 'probing',
        CLOSE: { target: 'closing', actions: assign({ status: 'closing' }) },
      },
    },
    probing: {
      invoke: {
        src: 'probe',
        onDone: [
          {
            guard: { type: 'refused', params: ({ event }) => ({ result: event.output }) },
            target: 'stopped',
            actions: assign(({ event }) => ({ status: `${event.output.message}; stopping`, stopReason: event.output.message })),
          },
          {
            guard: 'reconnects',
            target: 'waiting',
            actions: assign(({ context, event }) => {
              const delayMs = delayFor(context);
              return { delayMs, attempt: context.attempt + 1, status: `${event.output.message}; retrying in ${seconds(delayMs)}` };
            }),
          },
          { target: 'stopped', actions: assign(({ event }) => ({ status: `${event.output.message}; stopping`, stopReason: event.output.message })) },
        ],
        onError: {
          target: 'waiting',
          actions: assign(({ context }) => {
            const delayMs = delayFor(context);
            return { delayMs, attempt: context.attempt + 1, status: `could not connect; retrying in ${seconds(delayMs)}` };
          }),
        },
      },
      on: { CLOSE: { target: 'stopped', actions: assign({ status: 'closed by the client' }) } },
    },
    open: {
      entry: [assign({ status: 'connected' }), 'opened'],
      after: { stable: { guard: 'reconnects', actions: assign({ attempt: 0 }) } },
      on: {
        CLOSED: [
          {
            guard: { type: 'closeAllowsReconnect', params: ({ event }) => ({ code: event.code, reason: event.reason }) },
            target: 'waiting',
            actions: assign(({ context, event }) => {
              const delayMs = delayFor(context);
              const why = decideOnClose(event.code, event.reason, context.refreshable).why;
              return { delayMs, attempt: context.attempt + 1, status: `${why} in ${seconds(delayMs)}` };
            }),
          },
          {
            target: 'stopped',
            actions: assign(({ context, event }) => {
              const decision = decideOnClose(event.code, event.reason, context.refreshable);
              const why = decision.verdict === 'stop' ? decision.why : decision.why.replace(/reconnecting$/, 'stopping: reconnect is off');
              return { status: why, stopReason: why };
            }),
          },
        ],
        CLOSE: { target: 'closing', actions: assign({ status: 'closing' }) },
      },
    },
    waiting: {
      after: { backoff: 'connecting' },
      on: { CLOSE: { target: 'stopped', actions: assign({ status: 'closed by the client' }) } },
    },
    closing: {
      entry: 'closeSocket',
      on: { CLOSED: { target: 'stopped', actions: assign({ status: 'closed by the client' }) } },
    },
    stopped: {
      type: 'final',
      entry: 'stopped',
    },
  },
});
