// Group commit: items queue up while a flush is running and go together in the next one. The first
// item after an idle spell waits one turn of the event loop (setImmediate), so frames that arrived
// in the same network read share a commit; after that, a flush starts as soon as the previous ends.
// Items are flushed strictly in the order they were pushed, one flush at a time.

export interface WriteQueueOptions<T> {
  /** Handles one batch; must not throw for a single bad item (report it per item instead). */
  flush(items: T[]): Promise<void>;
  /** Largest batch; the rest waits for the next flush. */
  maxBatch: number;
  /** A flush that threw: the items are lost to the queue, so the handler must have answered them. */
  onFlushError(err: unknown, items: T[]): void;
}

export interface WriteQueue<T> {
  push(item: T): void;
  /** Items waiting, not counting the flush in progress. */
  readonly depth: number;
  /** Resolves once every item pushed so far has been flushed. */
  drain(): Promise<void>;
}

export function createWriteQueue<T>(options: WriteQueueOptions<T>): WriteQueue<T> {
  let pending: T[] = [];
  let running = false;
  let scheduled = false;
  let idleWaiters: Array<() => void> = [];

  const settleIdle = () => {
    if (running || scheduled || pending.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const run = async () => {
    scheduled = false;
    running = true;
    while (pending.length > 0) {
      const items = pending.length <= options.maxBatch ? pending : pending.slice(0, options.maxBatch);
      pending = pending.length <= options.maxBatch ? [] : pending.slice(options.maxBatch);
      try {
        await options.flush(items);
      } catch (err) {
        try {
          options.onFlushError(err, items);
        } catch {
          // The error handler failed too; the queue must keep flushing whatever comes next.
        }
      }
    }
    running = false;
    settleIdle();
  };

  return {
    push(item) {
      pending.push(item);
      if (!running && !scheduled) {
        scheduled = true;
        setImmediate(() => void run());
      }
    },
    get depth() {
      return pending.length;
    },
    drain() {
      if (!running && !scheduled && pending.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
