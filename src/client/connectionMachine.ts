// The client's connection lifecycle:
//   idle → connecting → open → (closed by the hub) → waiting → connecting … → stopped
// A socket that fails before it opens is probed over HTTP once (an upgrade refusal has no readable
// status in a browser), so a refused token stops the client instead of retrying forever. An opening
// handshake (or a probe) that hangs is given up after `openTimeoutMs` and retried like a failure. The machine
// does no I/O itself: opening and closing the socket, probing and reporting are named effects the
// client provides, and tests swap them with `provide`. Observers read the state and `status` line
// from snapshots.
import { assign, fromPromise, setup } from 'xstate';
import type { HttpAnswer } from './answers.js';
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
  /** An opening handshake (or the probe after it failed) that takes longer is given up. */
  openTimeoutMs?: number;
  /** The token comes from a function: an expired session can be renewed by reconnecting. */
  refreshable: boolean;
  random?: () => number;
}

export interface ConnectionContext {
  reconnect: ReconnectOptions | false;
  openTimeoutMs: number;
  /** The refused upgrade's answer, when the socket could read it (Node's `ws`): for the probe. */
  upgrade?: HttpAnswer;
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

export type ConnectionEvent =
  | { type: 'CONNECT' }
  | { type: 'OPENED' }
  /** The socket closed; `answer` is what answered its upgrade instead of 101, when it could be read. */
  | { type: 'CLOSED'; code: number; reason: string; answer?: HttpAnswer }
  | { type: 'CLOSE' };

/** Shortest wait before a retry, so a hub that accepts and closes at once is not hammered. */
export const RETRY_FLOOR_MS = 100;
/** How long an opening handshake may take by default: a hung one (a blackholed node) is retried. */
export const DEFAULT_OPEN_TIMEOUT_MS = 10_000;

function delayFor(context: ConnectionContext): number {
  if (!context.reconnect) return 0;
  return backoffDelay(
    context.attempt,
    { initialMs: context.reconnect.initialDelayMs, maxMs: context.reconnect.maxDelayMs, floorMs: RETRY_FLOOR_MS },
    context.random,
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The next wait and the line that explains it, after a failure described by `why`. */
function retryAfter(context: ConnectionContext, why: string) {
  const delayMs = delayFor(context);
  return { delayMs, attempt: context.attempt + 1, status: `${why}; retrying in ${seconds(delayMs)}` };
}

/** Stopped for good after a failure described by `why`. */
const stopAfter = (why: string) => ({ status: `${why}; stopping`, stopReason: why });

const handshakeTimedOut = (context: ConnectionContext) => `the WebSocket did not open within ${seconds(context.openTimeoutMs)}`;
const probeTimedOut = (context: ConnectionContext) => `the WebSocket did not open and the hub did not answer within ${seconds(context.openTimeoutMs)}`;

export const clientConnectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionInput,
  },
  actors: {
    /** Asks the hub over HTTP why the socket did not open. Provided by the client. */
    probe: fromPromise<ProbeResult, { upgrade?: HttpAnswer }>(async () => ({ verdict: 'retry', message: 'no probe' })),
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
    openTimeout: ({ context }) => context.openTimeoutMs,
  },
  actions: {
    // Effects, provided by the client.
    openSocket: () => undefined,
    closeSocket: () => undefined,
    /** Drops a socket that did not open in time: its later events are ignored. */
    abandonSocket: () => undefined,
    /** The socket is open: resend what is unacknowledged, then what was queued. */
    opened: () => undefined,
    /** Stopped for good: pending sends fail with context.stopReason. */
    stopped: () => undefined,
  },
}).createMachine({
  id: 'hubClient',
  context: ({ input }) => ({
    reconnect: input.reconnect,
    openTimeoutMs: input.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS,
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
      entry: [assign({ upgrade: undefined }), 'openSocket'],
      after: {
        openTimeout: [
          {
            guard: 'reconnects',
            target: 'waiting',
            actions: ['abandonSocket', assign(({ context }) => retryAfter(context, handshakeTimedOut(context)))],
          },
          { target: 'stopped', actions: assign(({ context }) => stopAfter(handshakeTimedOut(context))) },
        ],
      },
      on: {
        OPENED: 'open',
        CLOSED: { target: 'probing', actions: assign({ upgrade: ({ event }) => event.answer }) },
        CLOSE: { target: 'closing', actions: assign({ status: 'closing' }) },
      },
    },
    probing: {
      // The probe is a request that may hang as the handshake did: it gets the same time.
      after: {
        openTimeout: [
          {
            guard: 'reconnects',
            target: 'waiting',
            actions: assign(({ context }) => retryAfter(context, probeTimedOut(context))),
          },
          { target: 'stopped', actions: assign(({ context }) => stopAfter(probeTimedOut(context))) },
        ],
      },
      invoke: {
        src: 'probe',
        input: ({ context }) => ({ upgrade: context.upgrade }),
        onDone: [
          {
            guard: { type: 'refused', params: ({ event }) => ({ result: event.output }) },
            target: 'stopped',
            actions: assign(({ event }) => stopAfter(event.output.message)),
          },
          {
            guard: 'reconnects',
            target: 'waiting',
            actions: assign(({ context, event }) => retryAfter(context, event.output.message)),
          },
          { target: 'stopped', actions: assign(({ event }) => stopAfter(event.output.message)) },
        ],
        onError: {
          target: 'waiting',
          actions: assign(({ context }) => retryAfter(context, 'could not connect')),
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
