// Session expiry timers for connection actors. The actors share the router's actor system, and
// XState's scheduler keeps every delayed event of a system in one table that each stopping actor
// scans: with a JWT timer per human socket, a thousand sockets closing at once cost a million
// steps (about 75 ms of blocked loop, quadratic in the sockets). Here a timer is found by its actor.

/** setTimeout's ceiling (about 24.8 days); config caps JWT lifetimes below it. */
const MAX_DELAY = 2 ** 31 - 1;

export const SESSION_EXPIRED = { type: 'SESSION_EXPIRED' } as const;

/** Whatever receives the expiry (a connection actor). */
export interface ExpiryTarget {
  send(event: typeof SESSION_EXPIRED): void;
}

export interface ExpiryPort {
  /** Sends SESSION_EXPIRED to `target` after `delayMs` (at once when it is not positive). */
  watch(target: ExpiryTarget, delayMs: number): void;
  unwatch(target: ExpiryTarget): void;
}

export class SessionTimers implements ExpiryPort {
  private readonly timers = new Map<ExpiryTarget, NodeJS.Timeout>();

  watch(target: ExpiryTarget, delayMs: number): void {
    this.unwatch(target);
    const timer = setTimeout(
      () => {
        this.timers.delete(target);
        target.send(SESSION_EXPIRED);
      },
      Math.min(MAX_DELAY, Math.max(0, delayMs)),
    );
    // A timer must not keep a stopping hub alive: the socket's close ends the session anyway.
    timer.unref();
    this.timers.set(target, timer);
  }

  unwatch(target: ExpiryTarget): void {
    const timer = this.timers.get(target);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(target);
  }

  /** Sessions being watched (for inspection and tests). */
  get size(): number {
    return this.timers.size;
  }
}
