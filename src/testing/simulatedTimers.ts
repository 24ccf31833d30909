// Simulated time for tests: the hub's Timers port (clock.ts) on a clock that moves only when told.
// A test kit passes it as HubOptions.timers and calls `advance` to run approval expiry, conversation
// idle, session expiry or retention at once, in the order their due times fall. The hub's start path
// never imports this module (.dependency-cruiser.mjs: only src/testing/ may).
import type { TimerHandle, Timers } from '../clock.js';

export interface SimulatedTimers extends Timers {
  /**
   * Moves time forward by `ms`, running every timer that falls due on the way in due-time order (ties
   * in the order they were set), with `now()` at its due time, timers set by those callbacks included.
   * Between timers, and at the end, pending promise callbacks run (one event-loop turn), so a chain a
   * timer started reaches its next await on I/O before the next timer fires. Calls queue behind each
   * other. Rejects with the first error a callback throws (time then stays at that timer's due time).
   */
  advance(ms: number): Promise<void>;
  /** Timers set and not yet run or cleared (an interval counts until it is cleared). */
  pending(): number;
}

/** setTimeout's ceiling: a longer delay counts as none, as in Node (which warns and uses 1 ms). */
const MAX_DELAY = 2 ** 31 - 1;

interface Entry {
  readonly fn: () => void;
  /** Set order: breaks ties between timers due at the same time. */
  seq: number;
  due: number;
  /** For an interval, its period; undefined for a timeout. */
  readonly every: number | undefined;
}

class SimulatedHandle implements TimerHandle {
  constructor(readonly entry: Entry) {}
  unref(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  hasRef(): boolean {
    return false;
  }
}

/** A delay as a simulated timer waits it: 0 for anything but a positive number within the ceiling. */
function delayOf(ms: number): number {
  return Number.isFinite(ms) && ms > 0 && ms <= MAX_DELAY ? ms : 0;
}

/** One event-loop turn: every queued promise callback runs first, then I/O that is ready. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSimulatedTimers(startMs: number = Date.now()): SimulatedTimers {
  let now = startMs;
  let seq = 0;
  const entries = new Set<Entry>();
  let queue: Promise<void> = Promise.resolve();

  function add(fn: () => void, ms: number, every: number | undefined): TimerHandle {
    const entry: Entry = { fn, seq: seq++, due: now + delayOf(ms), every };
    entries.add(entry);
    return new SimulatedHandle(entry);
  }

  function clear(handle: TimerHandle | undefined): void {
    if (!(handle instanceof SimulatedHandle)) return;
    entries.delete(handle.entry);
  }

  /** The earliest timer due at or before `until`. */
  function next(until: number): Entry | undefined {
    let best: Entry | undefined;
    for (const e of entries) {
      if (e.due > until) continue;
      if (!best || e.due < best.due || (e.due === best.due && e.seq < best.seq)) best = e;
    }
    return best;
  }

  async function run(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance takes a finite number of milliseconds, not less than 0 (got ${ms})`);
    const until = now + ms;
    await turn();
    for (let entry = next(until); entry; entry = next(until)) {
      now = entry.due;
      if (entry.every === undefined) entries.delete(entry);
      else {
        // Node runs an interval at least 1 ms apart; so does this, or advance would never end.
        entry.due += Math.max(1, entry.every);
        entry.seq = seq++;
      }
      entry.fn();
      await turn();
    }
    now = until;
    await turn();
  }

  return {
    now: () => now,
    setTimeout: (fn, ms) => add(fn, ms, undefined),
    clearTimeout: clear,
    setInterval: (fn, ms) => add(fn, ms, delayOf(ms)),
    clearInterval: clear,
    advance(ms) {
      const done = queue.then(() => run(ms));
      queue = done.catch(() => undefined);
      return done;
    },
    pending: () => entries.size,
  };
}
