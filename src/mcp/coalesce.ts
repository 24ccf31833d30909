// At most one call per window: the first change is told at once, the changes during the window
// after it become one call when the window ends, and a quiet window ends the cycle. So a burst
// (every agent reconnecting after a restart) reaches each subscriber as a notification or two,
// never one per agent, and a lone change is not held back.

import { systemTimers, type TimerHandle, type Timers } from '../clock.js';

export interface Coalescer {
  /** Something changed. */
  poke(): void;
  /** Drops what is pending; no call follows. */
  stop(): void;
}

export function coalesce(windowMs: number, fire: () => void, timers: Timers = systemTimers): Coalescer {
  let timer: TimerHandle | undefined;
  let pending = false;
  const openWindow = () => {
    timer = timers.setTimeout(() => {
      timer = undefined;
      if (!pending) return;
      pending = false;
      fire();
      openWindow();
    }, windowMs);
    timer.unref?.();
  };
  return {
    poke() {
      if (timer !== undefined) {
        pending = true;
        return;
      }
      fire();
      openWindow();
    },
    stop() {
      timers.clearTimeout(timer);
      timer = undefined;
      pending = false;
    },
  };
}
