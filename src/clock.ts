// Time source, passed in so tests can pin it. Always ISO 8601 UTC with milliseconds.
export type Clock = () => string;

/**
 * The wall clock, formatted once per millisecond: every message gets a timestamp, and formatting a
 * Date was 6 % of the hub's main thread under load. `now` is the millisecond source: the process's
 * own by default, a simulated Timers' `now` when a test moves time (so stored timestamps and
 * expiries follow it).
 */
export function createSystemClock(now: () => number = Date.now): Clock {
  let lastMs = -1;
  let lastText = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastText = new Date(ms).toISOString();
    }
    return lastText;
  };
}

/** A timer handle as the hub's timers give it back (Node's Timeout, or a simulated clock's own). */
export interface TimerHandle {
  /** Lets the process exit while the timer waits (a no-op where there is no process to hold). */
  unref?(): unknown;
}

/**
 * The hub's timers: expiries, idle timeouts, heartbeats, retention sweeps. Passed in (HubOptions.timers)
 * so a test kit can move time without waiting; the shape is a superset of XState's `clock` actor
 * option, so machines' `after` delays can run on it too. `now()` is epoch milliseconds.
 */
export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle | undefined): void;
}

/** The process's own timers. */
export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout | undefined),
};
