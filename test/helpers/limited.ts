// Runs `fn` over `items` with at most `limit` calls in flight: a fuzz test's thousands of requests
// go over a few connections at once instead of one after another, so a busy machine does not turn
// a sweep into a timeout.
export async function eachLimited<T>(items: Iterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, queue.length) }, worker));
}
