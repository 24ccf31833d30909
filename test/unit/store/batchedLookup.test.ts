// Lookups asked together become one query; those asked while queries are in flight wait for the
// next, which takes them all (up to maxKeys); a failed query fails only its own callers.
import { describe, expect, it } from 'vitest';
import { createBatchedLookup } from '../../../src/store/repositories/batchedLookup.js';

/** A fetchMany whose calls the test answers by hand. */
function manual() {
  const calls: Array<{ keys: string[]; answer(found: Record<string, number>): void; fail(err: Error): void }> = [];
  const fetchMany = (keys: string[]) =>
    new Promise<Map<string, number>>((resolve, reject) => {
      calls.push({ keys, answer: (found) => resolve(new Map(Object.entries(found))), fail: reject });
    });
  return { calls, fetchMany };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('batched lookups', () => {
  it('asks for the keys of one turn in one query and for those asked meanwhile in the next, at most `parallel` at once', async () => {
    const { calls, fetchMany } = manual();
    const lookup = createBatchedLookup(fetchMany, { parallel: 1, maxKeys: 100 });
    const first = [lookup('a'), lookup('b'), lookup('a')];
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([['a', 'b']]);
    const later = [lookup('c'), lookup('d')];
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]!.answer({ a: 1 });
    expect(await Promise.all(first)).toEqual([1, undefined, 1]);
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    calls[1]!.answer({ c: 3, d: 4 });
    expect(await Promise.all(later)).toEqual([3, 4]);
  });

  it('splits past maxKeys over parallel queries, and a failed query fails only its callers', async () => {
    const { calls, fetchMany } = manual();
    const lookup = createBatchedLookup(fetchMany, { parallel: 2, maxKeys: 2 });
    const all = ['a', 'b', 'c', 'd', 'e'].map((k) =>
      lookup(k).then(
        (v) => v,
        (err: Error) => err.message,
      ),
    );
    await turn();
    expect(calls.map((c) => c.keys)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    calls[0]!.fail(new Error('store down'));
    await turn();
    expect(calls.map((c) => c.keys).at(-1)).toEqual(['e']);
    calls[1]!.answer({ c: 3 });
    calls[2]!.answer({ e: 5 });
    expect(await Promise.all(all)).toEqual(['store down', 'store down', 3, undefined, 5]);
  });
});
