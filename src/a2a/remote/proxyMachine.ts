// The life of one remote A2A agent's proxy: its card is checked (probing); while the card answers the
// agent is online (the proxy's endpoint is bound, so the router makes it ONLINE through the presence
// path and chat reaches it) and the card is checked again every interval; a failed check makes it
// offline, and the next check waits longer each time (backoff, capped). Stopped when this node stops
// running the proxy (leadership lost, the agent deleted, shutdown). No I/O here: `probe`, `bind` and
// `unbind` are named actions the proxy provides; each probe carries a number so a late answer to an
// earlier probe changes nothing.
import { assertEvent, assign, setup } from 'xstate';

export interface ProxyTiming {
  /** Between checks while online. */
  recheckMs: number;
  /** The first wait after a failed check; doubled per failure up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface ProxyContext extends ProxyTiming {
  /** The number of the probe whose answer counts. */
  probe: number;
  /** Failed checks in a row. */
  failures: number;
  /** Why the last check failed. */
  lastError?: string;
}

export type ProxyEvent =
  | { type: 'START' }
  | { type: 'STOP' }
  | { type: 'PROBE_OK'; probe: number }
  | { type: 'PROBE_FAILED'; probe: number; error: string }
  /** A call to the agent failed: check the card now rather than at the next interval. */
  | { type: 'CHECK_NOW' };

/** The wait before the next check after `failures` failed ones. */
export function backoffDelay(timing: ProxyTiming, failures: number): number {
  return Math.min(timing.maxBackoffMs, timing.backoffMs * 2 ** Math.max(0, failures - 1));
}

export const proxyMachine = setup({
  types: {
    context: {} as ProxyContext,
    events: {} as ProxyEvent,
    input: {} as ProxyTiming,
  },
  actions: {
    probe: () => undefined,
    bind: () => undefined,
    unbind: () => undefined,
    nextProbe: assign({ probe: ({ context }) => context.probe + 1 }),
    succeeded: assign({ failures: 0, lastError: undefined }),
    failed: assign({
      failures: ({ context }) => context.failures + 1,
      lastError: ({ event }) => {
        assertEvent(event, 'PROBE_FAILED');
        return event.error;
      },
    }),
  },
  guards: {
    current: ({ context, event }) => {
      assertEvent(event, ['PROBE_OK', 'PROBE_FAILED']);
      return event.probe === context.probe;
    },
  },
  delays: {
    recheck: ({ context }) => context.recheckMs,
    backoff: ({ context }) => backoffDelay(context, context.failures),
  },
}).createMachine({
  id: 'a2aProxy',
  context: ({ input }) => ({ ...input, probe: 0, failures: 0 }),
  initial: 'stopped',
  states: {
    stopped: {
      on: { START: 'probing' },
    },
    probing: {
      entry: ['nextProbe', 'probe'],
      on: {
        PROBE_OK: { guard: 'current', target: 'online', actions: 'succeeded' },
        PROBE_FAILED: { guard: 'current', target: 'offline', actions: 'failed' },
        STOP: 'stopped',
      },
    },
    online: {
      entry: 'bind',
      exit: 'unbind',
      initial: 'waiting',
      states: {
        waiting: {
          after: { recheck: 'checking' },
          on: { CHECK_NOW: 'checking' },
        },
        checking: {
          entry: ['nextProbe', 'probe'],
          on: {
            PROBE_OK: { guard: 'current', target: 'waiting', actions: 'succeeded' },
          },
        },
      },
      on: {
        PROBE_FAILED: { guard: 'current', target: 'offline', actions: 'failed' },
        STOP: 'stopped',
      },
    },
    offline: {
      after: { backoff: 'probing' },
      on: { CHECK_NOW: 'probing', STOP: 'stopped' },
    },
  },
});
