// The kit's simulated timers, behind the hub's Timers port (src/clock.ts). Stand-in until the hub
// ships its own (src/testing/simulatedTimers.ts, branch hub-timers): at that merge this file becomes
// `export { createSimulatedTimers, type SimulatedTimers } from './simulatedTimers.js';`.
import type { TimerHandle, Timers } from '../clock.js';

export interface SimulatedTimers extends Timers {
  /** Moves time forward by `ms`, running every timer that falls due on the way, in due order. */
  advance(ms: number): Promise<void>;
}

interface Scheduled extends TimerHandle {
  due: number;
  seq: number;
  fn: () => void;
  /** Set for intervals: the period to re-arm with. */
  every?: number;
  cancelled: boolean;
}

/** Timers that run only when `advance` moves them; `now()` starts at the wall clock's now. */
export function createSimulatedTimers(start = Date.now()): SimulatedTimers {
  let now = start;
  let seq = 0;
  const pending = new Set<Scheduled>();
  const schedule = (fn: () => void, ms: number, every?: number): Scheduled => {
    const timer: Scheduled = { due: now + Math.max(0, ms), seq: seq++, fn, every, cancelled: false, unref: () => timer };
    pending.add(timer);
    return timer;
  };
  const cancel = (handle: TimerHandle | undefined) => {
    const timer = handle as Scheduled | undefined;
    if (timer && pending.delete(timer)) timer.cancelled = true;
  };
  const next = (until: number): Scheduled | undefined => {
    let first: Scheduled | undefined;
    for (const t of pending) if (t.due <= until && (!first || t.due < first.due || (t.due === first.due && t.seq < first.seq))) first = t;
    return first;
  };
  return {
    now: () => now,
    setTimeout: (fn, ms) => schedule(fn, ms),
    clearTimeout: cancel,
    // An interval of 0 would never let time move on: it runs at most once per millisecond.
    setInterval: (fn, ms) => schedule(fn, Math.max(1, ms), Math.max(1, ms)),
    clearInterval: cancel,
    async advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`clock.advance needs a duration of 0 or more, got ${ms}`);
      const until = now + ms;
      for (let timer = next(until); timer; timer = next(until)) {
        now = Math.max(now, timer.due);
        if (timer.every === undefined) pending.delete(timer);
        else timer.due += timer.every;
        timer.fn();
        // What the callback started (a store write, a delivery) runs before the next timer does.
        await new Promise((resolve) => setImmediate(resolve));
      }
      now = until;
    },
  };
}
