// Messages for the platform, sent one at a time in order and at most `perMinute` in any sliding
// minute. Past the limit they wait in the queue; nothing is dropped unless the queue is stopped or
// holds MAX_QUEUED already (then the caller is told, so it can log it).
import { systemTimers, type TimerHandle, type Timers } from '../clock.js';

export interface OutboundQueueOptions<T> {
  perMinute: number;
  /** Sends one item; a rejection is the sender's to log, the queue moves on. */
  send(item: T): Promise<void>;
  now?: () => number;
  /** Runs the wait for the window (the hub's timers); its `now` is the default of `now`. */
  timers?: Timers;
  maxQueued?: number;
}

const WINDOW_MS = 60_000;
const MAX_QUEUED = 10_000;

export function createOutboundQueue<T>(options: OutboundQueueOptions<T>) {
  const timers = options.timers ?? systemTimers;
  const now = options.now ?? (options.timers ? () => timers.now() : Date.now);
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  let perMinute = options.perMinute;
  const queue: T[] = [];
  /** When the sends of the last minute started (oldest first). */
  const sentAt: number[] = [];
  let running = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  const idleWaiters: Array<() => void> = [];
  const settleIdle = () => {
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  /** Milliseconds until the next send fits in the window (0: now). */
  function wait(): number {
    const t = now();
    while (sentAt.length > 0 && t - sentAt[0]! >= WINDOW_MS) sentAt.shift();
    if (sentAt.length < perMinute) return 0;
    return sentAt[sentAt.length - perMinute]! + WINDOW_MS - t;
  }

  async function pump(): Promise<void> {
    running = true;
    while (!stopped && queue.length > 0) {
      const delay = wait();
      if (delay > 0) {
        running = false;
        timer = timers.setTimeout(() => {
          timer = undefined;
          void pump();
        }, delay);
        timer.unref?.();
        return;
      }
      sentAt.push(now());
      const item = queue.shift()!;
      await options.send(item).catch(() => undefined);
    }
    running = false;
    settleIdle();
  }

  return {
    /** Queues an item; false when the queue is full or stopped (the item is not taken). */
    push(item: T): boolean {
      if (stopped || queue.length >= maxQueued) return false;
      queue.push(item);
      if (!running && timer === undefined) void pump();
      return true;
    },

    setRate(next: number): void {
      perMinute = next;
    },

    get depth(): number {
      return queue.length;
    },

    /** Resolves when everything queued so far has been handed to `send` and settled. */
    drained(): Promise<void> {
      if (queue.length === 0 && !running) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },

    /** Stops sending; returns what was still queued. */
    stop(): T[] {
      stopped = true;
      if (timer) timers.clearTimeout(timer);
      timer = undefined;
      settleIdle();
      return queue.splice(0);
    },
  };
}
export type OutboundQueue<T> = ReturnType<typeof createOutboundQueue<T>>;
