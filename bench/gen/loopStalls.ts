// How long this process's event loop went without turning, and when. A generator starved of CPU (a
// loaded machine) reads its sockets late, and a server may rightly take it for a slow reader; these
// stretches let a check tell that from a server that cut off a reader that was keeping up.
import { now } from '../lib/clock.js';

/** A stretch the loop did not turn: it ended at `end` (wall-clock ms, see `now`) and lasted `ms`. */
export interface LoopStall {
  end: number;
  ms: number;
}

const TICK_MS = 10;
/** Shorter stretches are not kept: a timer fires a few milliseconds late on any machine. */
export const LOOP_STALL_FLOOR_MS = 20;
/** Kept at most (a process stalled every tick for 10 minutes): the oldest go first. */
const MAX_KEPT = 30_000;

export class LoopStallWatch {
  private readonly stalls: LoopStall[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last = now();

  start(): void {
    this.last = now();
    const tick = () => {
      const at = now();
      const late = at - this.last - TICK_MS;
      this.last = at;
      if (late >= LOOP_STALL_FLOOR_MS) {
        if (this.stalls.push({ end: at, ms: late }) > MAX_KEPT) this.stalls.shift();
      }
      this.timer = setTimeout(tick, TICK_MS);
      this.timer.unref();
    };
    this.timer = setTimeout(tick, TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Every stretch of at least LOOP_STALL_FLOOR_MS so far. */
  list(): LoopStall[] {
    return [...this.stalls];
  }
}

/** The longest stretch that overlaps [from, to]; 0 when none reached LOOP_STALL_FLOOR_MS. */
export function longestStall(stalls: readonly LoopStall[], from: number, to: number): number {
  let longest = 0;
  for (const s of stalls) if (s.end >= from && s.end - s.ms <= to && s.ms > longest) longest = s.ms;
  return longest;
}
