// The platform long connection's lifecycle as a machine:
//   stopped → loading (the SDK) → connecting → connected → waiting (backoff) → loading … ; refused; stopped
// START with an app_id of the wrong form goes to `refused` (the SDK would silently never connect).
// Every client opened is one numbered attempt: the client's callbacks carry the attempt they belong
// to, and an event from an older attempt (a client already closed) is ignored. While connected the
// machine asks, every `watchMs`, for the client's public status (the SDK reports a dropped socket only
// there). No I/O happens in here: loading the SDK, starting, checking and closing the client and
// reporting a state change are named effects the driver (longConnection.ts) provides, and tests swap
// them with `provide`.
import { assertEvent, assign, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

export interface LongConnectionCredentials {
  appId: string;
  appSecret: string;
  verificationToken?: string;
  encryptKey?: string;
}

/** `refused`: not opened at all (the credentials cannot work); `waiting`: before the next try. */
export type LongConnectionState = 'stopped' | 'refused' | 'connecting' | 'connected' | 'waiting';

/** Feishu/Lark app ids; the SDK silently refuses to start with anything else. */
export const APP_ID_PATTERN = /^cli_[0-9a-fA-F]{16}$/;

export const DEFAULT_BACKOFF = { initialMs: 500, maxMs: 30_000 };
export const DEFAULT_WATCH_MS = 250;

export interface LongConnectionInput {
  backoff?: { initialMs: number; maxMs: number };
  /** How often the client's status is checked for a dropped socket. */
  watchMs?: number;
  /** For the backoff's jitter; tests pin it. */
  random?: () => number;
}

export interface LongConnectionContext {
  backoff: { initialMs: number; maxMs: number };
  watchMs: number;
  random: () => number;
  /** What the client is opened with; set by START. */
  credentials: LongConnectionCredentials | undefined;
  /** Number of the latest client opened; events of older clients are ignored. */
  attempt: number;
  /** Failed tries since START or since the last successful connection. */
  failures: number;
  /** How long `waiting` waits. */
  delayMs: number;
  /** The state last reported (what a reader of the connection sees), and why. */
  reported: LongConnectionState;
  detail: string;
}

export type LongConnectionEvent =
  | { type: 'START'; credentials: LongConnectionCredentials }
  | { type: 'STOP' }
  /** The SDK module is loaded for `attempt`. */
  | { type: 'SDK_LOADED'; attempt: number }
  /** The client of `attempt` has its socket (the SDK's onReady). */
  | { type: 'CLIENT_READY'; attempt: number }
  /** Loading the SDK, creating or starting the client of `attempt` failed, or the SDK reported an error. */
  | { type: 'CLIENT_FAILED'; attempt: number; message: string }
  /** A status check found the client of `attempt` no longer connected. */
  | { type: 'CONNECTION_LOST'; attempt: number; status: string };

/** The wait before try number `failures + 1`: 1×, 2×, 4× … the initial delay up to the cap, the upper half with jitter. */
export function backoffDelay(failures: number, backoff: { initialMs: number; maxMs: number }, random: () => number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

const REFUSED_DETAIL = 'long connection not opened: app_id must be "cli_" followed by 16 hexadecimal digits';

/** Why a try failed, as the log says it. */
function failureReason(event: Extract<LongConnectionEvent, { type: 'CLIENT_FAILED' | 'CONNECTION_LOST' }>): string {
  return event.type === 'CONNECTION_LOST' ? `connection lost (${event.status})` : `long connection failed: ${event.message}`;
}

export const longConnectionMachine = setup({
  types: {
    context: {} as LongConnectionContext,
    events: {} as LongConnectionEvent,
    input: {} as LongConnectionInput,
  },
  guards: {
    validAppId: ({ event }) => {
      assertEvent(event, 'START');
      return APP_ID_PATTERN.test(event.credentials.appId);
    },
    /** The event comes from the client opened last (not from one already closed). */
    currentAttempt: ({ context, event }) => {
      assertEvent(event, ['SDK_LOADED', 'CLIENT_READY', 'CLIENT_FAILED', 'CONNECTION_LOST']);
      return event.attempt === context.attempt;
    },
    reportedStopped: ({ context }) => context.reported === 'stopped',
  },
  delays: {
    backoff: ({ context }) => context.delayMs,
    watch: ({ context }) => context.watchMs,
  },
  actions: {
    // Effects, provided by the driver.
    /** Loads the SDK, then sends SDK_LOADED (or CLIENT_FAILED) for the attempt. */
    loadSdk: (_, _params: { attempt: number }) => undefined,
    /** Creates and starts a client; its callbacks send CLIENT_READY / CLIENT_FAILED for the attempt. */
    startClient: (_, _params: { attempt: number; credentials: LongConnectionCredentials }) => undefined,
    /** Reads the client's status; sends CONNECTION_LOST for the attempt unless it is connected. */
    checkClient: (_, _params: { attempt: number }) => undefined,
    /** Closes the client, if there is one. */
    closeClient: () => undefined,
    /** A state change and the reason, for the connector's log. */
    report: (_, _params: { state: LongConnectionState; detail: string }) => undefined,
    // Context changes.
    takeCredentials: assign(({ event }) => {
      assertEvent(event, 'START');
      return { credentials: event.credentials, failures: 0 };
    }),
    nextAttempt: assign({ attempt: ({ context }) => context.attempt + 1 }),
    scheduleRetry: assign(({ context, event }) => {
      assertEvent(event, ['CLIENT_FAILED', 'CONNECTION_LOST']);
      const delayMs = backoffDelay(context.failures, context.backoff, context.random);
      const failures = context.failures + 1;
      return { delayMs, failures, reported: 'waiting' as const, detail: `${failureReason(event)}; reconnecting in ${delayMs} ms (attempt ${failures})` };
    }),
  },
}).createMachine({
  id: 'longConnection',
  context: ({ input }) => ({
    backoff: input.backoff ?? DEFAULT_BACKOFF,
    watchMs: input.watchMs ?? DEFAULT_WATCH_MS,
    random: input.random ?? Math.random,
    credentials: undefined,
    attempt: 0,
    failures: 0,
    delayMs: 0,
    reported: 'stopped',
    detail: '',
  }),
  initial: 'stopped',
  on: {
    // Starting again (new credentials) drops whatever runs and begins afresh.
    START: [
      { guard: 'validAppId', target: '.loading', actions: ['closeClient', 'takeCredentials'] },
      {
        target: '.refused',
        actions: [
          'closeClient',
          'takeCredentials',
          assign({ reported: 'refused', detail: REFUSED_DETAIL }),
          { type: 'report', params: { state: 'refused', detail: REFUSED_DETAIL } },
        ],
      },
    ],
    STOP: [
      // Nothing was reported since the last stop (or ever): stop quietly.
      { guard: 'reportedStopped', target: '.stopped', actions: 'closeClient' },
      {
        target: '.stopped',
        actions: [
          'closeClient',
          assign({ reported: 'stopped', detail: 'long connection closed' }),
          { type: 'report', params: { state: 'stopped', detail: 'long connection closed' } },
        ],
      },
    ],
  },
  states: {
    stopped: {},
    refused: {},
    loading: {
      // Reports nothing yet: a reader still sees the state before (stopped, waiting …).
      entry: ['nextAttempt', { type: 'loadSdk', params: ({ context }) => ({ attempt: context.attempt }) }],
      on: {
        SDK_LOADED: { guard: 'currentAttempt', target: 'connecting' },
        CLIENT_FAILED: { guard: 'currentAttempt', target: 'waiting', actions: ['closeClient', 'scheduleRetry'] },
      },
    },
    connecting: {
      entry: [
        assign({ reported: 'connecting', detail: 'opening the long connection' }),
        { type: 'report', params: { state: 'connecting', detail: 'opening the long connection' } },
        { type: 'startClient', params: ({ context }) => ({ attempt: context.attempt, credentials: context.credentials! }) },
      ],
      on: {
        CLIENT_READY: { guard: 'currentAttempt', target: 'connected' },
        CLIENT_FAILED: { guard: 'currentAttempt', target: 'waiting', actions: ['closeClient', 'scheduleRetry'] },
      },
    },
    connected: {
      entry: [
        assign({ failures: 0, reported: 'connected', detail: 'long connection established' }),
        { type: 'report', params: { state: 'connected', detail: 'long connection established' } },
      ],
      initial: 'watching',
      states: {
        watching: {
          after: { watch: { target: 'watching', reenter: true, actions: { type: 'checkClient', params: ({ context }) => ({ attempt: context.attempt }) } } },
        },
      },
      on: {
        CONNECTION_LOST: { guard: 'currentAttempt', target: 'waiting', actions: ['closeClient', 'scheduleRetry'] },
        CLIENT_FAILED: { guard: 'currentAttempt', target: 'waiting', actions: ['closeClient', 'scheduleRetry'] },
      },
    },
    waiting: {
      entry: { type: 'report', params: ({ context }) => ({ state: 'waiting' as const, detail: context.detail }) },
      after: { backoff: 'loading' },
    },
  },
});

export type LongConnectionSnapshot = SnapshotFrom<typeof longConnectionMachine>;
export type LongConnectionActor = ActorRefFrom<typeof longConnectionMachine>;
