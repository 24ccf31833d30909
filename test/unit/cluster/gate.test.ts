import { describe, expect, it } from 'vitest';
import { createOrderGate, type GatedBatch } from '../../../src/cluster/gate.js';

/** A gate on a hand-driven timer: `tick()` fires the grace timer, `fills` records the gaps read. */
function harness(initial = 0) {
  const ran: string[] = [];
  const fills: Array<[number, number]> = [];
  let timer: (() => void) | undefined;
  let release: (() => void) | undefined;
  const gate = createOrderGate({
    graceMs: 100,
    fill: (after, upTo) => {
      fills.push([after, upTo]);
      ran.push(`fill(${after},${upTo}]`);
      return new Promise<void>((resolve) => (release = resolve));
    },
    onError: (err) => {
      throw err;
    },
    setTimer: (fn) => (timer = fn),
    clearTimer: () => (timer = undefined),
  });
  gate.start(initial);
  const batch = (name: string, prev: number, last: number, skips?: number[]): GatedBatch => ({
    prev,
    last,
    run: (skipUpTo) => {
      ran.push(name);
      skips?.push(skipUpTo);
    },
  });
  return {
    gate,
    ran,
    fills,
    batch,
    get armed() {
      return timer !== undefined;
    },
    tick() {
      const fn = timer;
      timer = undefined;
      fn?.();
    },
    async finishFill() {
      release?.();
      release = undefined;
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('the visibility-order gate', () => {
  it('hands batches over at once when they come in commit order', () => {
    const h = harness();
    h.gate.offer(h.batch('a', 0, 3));
    h.gate.offer(h.batch('b', 3, 5));
    expect(h.ran).toEqual(['a', 'b']);
    expect(h.gate.state()).toMatchObject({ through: 5, pending: 0 });
    expect(h.armed).toBe(false);
  });

  it('holds a batch until the one committed before it arrives, then hands both over in order', () => {
    const h = harness();
    h.gate.offer(h.batch('later', 3, 5));
    expect(h.ran).toEqual([]);
    expect(h.armed).toBe(true);
    h.gate.offer(h.batch('earlier', 0, 3));
    expect(h.ran).toEqual(['earlier', 'later']);
    expect(h.armed).toBe(false);
  });

  it('passes batches that stored nothing (relays, presence) once everything before them is through', () => {
    const h = harness(10);
    h.gate.offer(h.batch('relay', 10, 10));
    h.gate.offer(h.batch('presence', 12, 12));
    h.gate.offer(h.batch('messages', 10, 12));
    expect(h.ran).toEqual(['relay', 'messages', 'presence']);
  });

  it('fills a gap from the store after the grace, holding everything meanwhile, and leaves filled ids out of a late batch', async () => {
    const h = harness();
    const skips: number[] = [];
    h.gate.offer(h.batch('after the gap', 4, 6));
    h.tick();
    expect(h.fills).toEqual([[0, 4]]);
    // Arrives while the gap is being read: it waits for the fill.
    h.gate.offer(h.batch('the lost batch, late', 0, 4, skips));
    expect(h.ran).toEqual(['fill(0,4]']);
    await h.finishFill();
    // In commit order: what is left of the late batch (its relays) goes before the batch after it.
    expect(h.ran).toEqual(['fill(0,4]', 'the lost batch, late', 'after the gap']);
    expect(skips).toEqual([4]);
    expect(h.gate.state()).toMatchObject({ through: 6, filledThrough: 4, fills: 1, pending: 0 });
  });

  it('reads commits it never heard of (the poll saw them) once the grace has passed', async () => {
    const h = harness(2);
    h.gate.observe(9);
    expect(h.armed).toBe(true);
    h.tick();
    expect(h.fills).toEqual([[2, 9]]);
    await h.finishFill();
    expect(h.gate.state()).toMatchObject({ through: 9, known: 9 });
  });

  it('does not fill when the batch the poll announced arrives within the grace', () => {
    const h = harness();
    h.gate.observe(3);
    h.gate.offer(h.batch('a', 0, 3));
    expect(h.armed).toBe(false);
    h.tick();
    expect(h.fills).toEqual([]);
  });

  it('holds everything offered before it starts, and skips what predates its start', () => {
    const ran: string[] = [];
    const skips: number[] = [];
    const gate = createOrderGate({ graceMs: 100, fill: async () => undefined, onError: () => undefined, setTimer: () => 1, clearTimer: () => undefined });
    gate.offer({ prev: 5, last: 8, run: (skip) => (ran.push('x'), skips.push(skip)) });
    expect(ran).toEqual([]);
    gate.start(8);
    expect(ran).toEqual(['x']);
    expect(skips).toEqual([8]);
  });
});
