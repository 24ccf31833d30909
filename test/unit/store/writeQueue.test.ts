// The group-commit write queue: push order, grouping of items pushed during a flush, maxBatch, depth,
// drain and flush errors. Each flush is held open by a deferred promise the test settles.
import { describe, expect, it } from 'vitest';
import { createWriteQueue, type WriteQueue } from '../../../src/store/writeQueue.js';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

interface Flush<T> {
  items: T[];
  done: Deferred;
}

/** A queue whose flushes wait for the test: `nextFlush()` resolves when a flush starts. */
function harness<T>(maxBatch = 100) {
  const flushes: Array<Flush<T>> = [];
  const errors: Array<{ err: unknown; items: T[] }> = [];
  let waiting: Array<(f: Flush<T>) => void> = [];
  let seen = 0;

  const queue: WriteQueue<T> = createWriteQueue<T>({
    maxBatch,
    flush(items) {
      const flush = { items: [...items], done: deferred() };
      flushes.push(flush);
      const ws = waiting;
      waiting = [];
      for (const w of ws) w(flush);
      return flush.done.promise;
    },
    onFlushError(err, items) {
      errors.push({ err, items: [...items] });
    },
  });

  /** The next flush not yet handed out, waiting for it to start if needed. */
  const nextFlush = (): Promise<Flush<T>> => {
    if (seen < flushes.length) return Promise.resolve(flushes[seen++]!);
    return new Promise((resolve) => {
      waiting.push((f) => {
        seen++;
        resolve(f);
      });
    });
  };

  return { queue, flushes, errors, nextFlush };
}

/** Records when a promise settles, so a test can assert it has not yet. */
function track(promise: Promise<void>) {
  const state = { settled: false };
  void promise.then(() => {
    state.settled = true;
  });
  return state;
}

/** Lets queued promise callbacks run (no timers involved). */
const microtasks = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('write queue', () => {
  it('flushes items pushed together in one batch, in push order', async () => {
    const { queue, nextFlush } = harness<number>();
    queue.push(1);
    queue.push(2);
    queue.push(3);
    const flush = await nextFlush();
    expect(flush.items).toEqual([1, 2, 3]);
    flush.done.resolve();
    await queue.drain();
  });

  it('groups the items pushed during a running flush into the next flush (group commit)', async () => {
    const { queue, flushes, nextFlush } = harness<string>();
    queue.push('a');
    const first = await nextFlush();
    expect(first.items).toEqual(['a']);

    queue.push('b');
    queue.push('c');
    queue.push('d');
    await microtasks();
    expect(flushes).toHaveLength(1); // one flush at a time

    first.done.resolve();
    const second = await nextFlush();
    expect(second.items).toEqual(['b', 'c', 'd']);
    second.done.resolve();
    await queue.drain();
    expect(flushes.map((f) => f.items)).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('never flushes more than maxBatch items at once, keeping order across batches', async () => {
    const { queue, nextFlush } = harness<number>(2);
    for (let i = 1; i <= 5; i++) queue.push(i);
    const batches: number[][] = [];
    for (let n = 0; n < 3; n++) {
      const flush = await nextFlush();
      batches.push(flush.items);
      flush.done.resolve();
    }
    await queue.drain();
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('applies maxBatch to items that arrived during a flush too', async () => {
    const { queue, nextFlush } = harness<number>(2);
    queue.push(1);
    const first = await nextFlush();
    queue.push(2);
    queue.push(3);
    queue.push(4);
    first.done.resolve();
    const second = await nextFlush();
    expect(second.items).toEqual([2, 3]);
    queue.push(5);
    second.done.resolve();
    const third = await nextFlush();
    expect(third.items).toEqual([4, 5]);
    third.done.resolve();
    await queue.drain();
  });

  it('reports as depth the items waiting, not those being flushed', async () => {
    const { queue, nextFlush } = harness<number>(2);
    expect(queue.depth).toBe(0);
    queue.push(1);
    queue.push(2);
    queue.push(3);
    expect(queue.depth).toBe(3);
    const first = await nextFlush();
    expect(first.items).toEqual([1, 2]);
    expect(queue.depth).toBe(1);
    queue.push(4);
    expect(queue.depth).toBe(2);
    first.done.resolve();
    const second = await nextFlush();
    expect(queue.depth).toBe(0);
    second.done.resolve();
    await queue.drain();
    expect(queue.depth).toBe(0);
  });

  it('drain() resolves at once on an idle queue', async () => {
    const { queue, flushes } = harness<number>();
    await queue.drain();
    expect(flushes).toEqual([]);
  });

  it('drain() resolves only after every pushed item is flushed', async () => {
    const { queue, nextFlush } = harness<number>();
    queue.push(1);
    const drained = track(queue.drain());
    const flush = await nextFlush();
    await microtasks();
    expect(drained.settled).toBe(false);
    flush.done.resolve();
    await microtasks();
    expect(drained.settled).toBe(true);
  });

  it('drain() also waits for items pushed while a flush was running', async () => {
    const { queue, nextFlush } = harness<number>();
    queue.push(1);
    const first = await nextFlush();
    const drained = track(queue.drain());
    queue.push(2);
    first.done.resolve();
    const second = await nextFlush();
    await microtasks();
    expect(second.items).toEqual([2]);
    expect(drained.settled).toBe(false);
    second.done.resolve();
    await microtasks();
    expect(drained.settled).toBe(true);
  });

  it('resolves every drain() caller', async () => {
    const { queue, nextFlush } = harness<number>();
    queue.push(1);
    const a = track(queue.drain());
    const b = track(queue.drain());
    const flush = await nextFlush();
    flush.done.resolve();
    await microtasks();
    expect([a.settled, b.settled]).toEqual([true, true]);
  });

  it('hands exactly the items of a failed flush to onFlushError and keeps working', async () => {
    const { queue, errors, nextFlush } = harness<string>(2);
    queue.push('a');
    queue.push('b');
    queue.push('c');
    const failing = await nextFlush();
    const boom = new Error('disk full');
    failing.done.reject(boom);
    const next = await nextFlush();
    expect(errors).toEqual([{ err: boom, items: ['a', 'b'] }]);
    expect(next.items).toEqual(['c']);
    next.done.resolve();
    await queue.drain();

    queue.push('d');
    const later = await nextFlush();
    expect(later.items).toEqual(['d']);
    later.done.resolve();
    await queue.drain();
    expect(errors).toHaveLength(1);
  });

  it('lets drain() settle after a failed last flush', async () => {
    const { queue, errors, nextFlush } = harness<number>();
    queue.push(1);
    const drained = track(queue.drain());
    const flush = await nextFlush();
    flush.done.reject(new Error('lost connection'));
    await microtasks();
    expect(drained.settled).toBe(true);
    expect(errors.map((e) => e.items)).toEqual([[1]]);
  });
});
