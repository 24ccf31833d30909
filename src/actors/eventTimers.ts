// Timers that send an actor one event later, kept outside XState's scheduler. The actors that join
// the router's system share its scheduler, which keeps every delayed event of the system in one
// table and scans all of it whenever any actor of the system stops: with a timer per socket or per
// conversation, closing a thousand at once cost a million steps (75 ms of blocked loop for 1,000
// human sockets). Here a timer is found by its target. They run on the hub's Timers (clock.ts), so a
// test can move time past them.
import { systemTimers, type TimerHandle, type Timers } from '../clock.js';

/** setTimeout's ceiling (about 24.8 days). */
const MAX_DELAY = 2 ** 31 - 1;

/** Whatever receives the event (an actor). */
export interface TimerTarget<E> {
  send(event: E): void;
}

export interface TimerPort<E> {
  /** Sends the event to `target` after `delayMs` (at once when it is not positive), replacing its earlier timer. */
  watch(target: TimerTarget<E>, delayMs: number): void;
  unwatch(target: TimerTarget<E>): void;
}

export class EventTimers<E> implements TimerPort<E> {
  private readonly timers = new Map<TimerTarget<E>, TimerHandle>();

  constructor(
    private readonly event: E,
    private readonly clock: Timers = systemTimers,
  ) {}

  watch(target: TimerTarget<E>, delayMs: number): void {
    this.unwatch(target);
    const timer = this.clock.setTimeout(
      () => {
        this.timers.delete(target);
        target.send(this.event);
      },
      Math.min(MAX_DELAY, Math.max(0, delayMs)),
    );
    // A timer must not keep a stopping hub alive: what it watches ends with the hub anyway.
    timer.unref?.();
    this.timers.set(target, timer);
  }

  unwatch(target: TimerTarget<E>): void {
    const timer = this.timers.get(target);
    if (timer === undefined) return;
    this.clock.clearTimeout(timer);
    this.timers.delete(target);
  }

  /** Targets being watched (for inspection and tests). */
  get size(): number {
    return this.timers.size;
  }
}
