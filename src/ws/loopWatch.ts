// How long the hub's own event loop was held: by a long run (a large fan-out), a GC pause, a starved
// CPU, a paused process. A client's pong that arrives meanwhile waits in the kernel, unread, so that
// time proves nothing about the client: the outlets take it off a ping's age before they judge a
// reader stalled (see outlet.ts). Measured by an unref'd timer's own lateness, which costs one
// callback per tick.
import type { Logger } from 'pino';

export interface LoopWatch {
  /**
   * Milliseconds the loop has been held since the watch started, a hold still under way included
   * (the run that asks may itself be the one that held it). It never goes down, so the held time
   * between two moments is the difference of two readings.
   */
  heldMs(): number;
  stop(): void;
}

export interface LoopWatchOptions {
  logger: Logger;
  /** The tick: a hold counts from the next tick's due time, so up to this much of one goes unseen. */
  intervalMs?: number;
  /** A hold at least this long is logged (`event loop held`). */
  logFromMs: number;
}

const INTERVAL_MS = 20;

export function startLoopWatch(options: LoopWatchOptions): LoopWatch {
  const { logger, logFromMs } = options;
  const intervalMs = options.intervalMs ?? INTERVAL_MS;
  // The clock the outlets read a ping's age on.
  const now = () => performance.now();
  let held = 0;
  let lastTick = now();
  // Past the tick's due time the loop has not come round to the timer: held that long so far.
  const underWay = (at: number) => Math.max(0, at - lastTick - intervalMs);
  const timer = setInterval(() => {
    const at = now();
    const late = underWay(at);
    held += late;
    lastTick = at;
    if (late >= logFromMs) logger.warn({ heldMs: Math.round(late) }, 'event loop held');
  }, intervalMs);
  timer.unref();
  return {
    heldMs: () => held + underWay(now()),
    stop: () => clearInterval(timer),
  };
}
