// Idle timers for Butler's conversation actors. The conversations share the router's actor system,
// and XState's scheduler keeps every delayed event of a system in one table that each stopping
// actor scans: with an idle timer per waiting conversation, every answer's end (its invoked actor
// stopping) scanned them all. Here a timer is found by its conversation.

export const IDLE_EXPIRED = { type: 'IDLE' } as const;

/** Whatever hears that its idle time ran out (a conversation actor). */
export interface IdleTarget {
  send(event: typeof IDLE_EXPIRED): void;
}

export interface IdlePort {
  /** Sends IDLE to `target` after `delayMs`, replacing its earlier timer. */
  watch(target: IdleTarget, delayMs: number): void;
  unwatch(target: IdleTarget): void;
}

export class IdleTimers implements IdlePort {
  private readonly timers = new Map<IdleTarget, NodeJS.Timeout>();

  watch(target: IdleTarget, delayMs: number): void {
    this.unwatch(target);
    const timer = setTimeout(() => {
      this.timers.delete(target);
      target.send(IDLE_EXPIRED);
    }, delayMs);
    // An idle conversation must not keep a stopping hub alive.
    timer.unref();
    this.timers.set(target, timer);
  }

  unwatch(target: IdleTarget): void {
    const timer = this.timers.get(target);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(target);
  }

  /** Conversations waiting idle (for inspection and tests). */
  get size(): number {
    return this.timers.size;
  }
}
