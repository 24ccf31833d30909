// Many lookups of one kind as few queries: keys asked for while a query is in flight wait for the
// next one, which asks for all of them at once. A connect storm (thousands of agents reconnecting
// after a node died) then costs a handful of queries and pool connections instead of one each:
// the scale bench's storm held every PostgreSQL connection of the pool with token lookups, so the
// rest waited past the pool's timeout and were refused with 503, and batches of messages with them.
export interface BatchedLookupOptions {
  /** Queries in flight at once. */
  parallel: number;
  /** Keys in one query at most. */
  maxKeys: number;
}

type Waiter<V> = { resolve(value: V | undefined): void; reject(err: unknown): void };

/** `fetchMany` answers the rows it found by key; a key it leaves out resolves undefined. */
export function createBatchedLookup<K, V>(fetchMany: (keys: K[]) => Promise<Map<K, V>>, options: BatchedLookupOptions): (key: K) => Promise<V | undefined> {
  let waiting = new Map<K, Waiter<V>[]>();
  let running = 0;
  let scheduled = false;

  function run(): void {
    while (running < options.parallel && waiting.size > 0) {
      let batch = waiting;
      if (batch.size > options.maxKeys) {
        batch = new Map([...waiting].slice(0, options.maxKeys));
        for (const key of batch.keys()) waiting.delete(key);
      } else waiting = new Map();
      running++;
      fetchMany([...batch.keys()])
        .then(
          (found) => {
            for (const [key, waiters] of batch) for (const w of waiters) w.resolve(found.get(key));
          },
          (err: unknown) => {
            for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
          },
        )
        .finally(() => {
          running--;
          run();
        });
    }
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      const waiters = waiting.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      // Callers in the same turn (a burst of upgrades) share the first query too.
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(() => {
          scheduled = false;
          run();
        });
      }
    });
}
