import { describe, expect, it } from 'vitest';
import { createOrderGate, type GatedBatch } from '../../../src/cluster/batches/gate.js';

type Row = { id: number };

/**
 * A gate on a hand-driven timer: `tick()` fires the timer, `reads` records each read of the store
 * (answered by `answer(rows)`), `ran` what was handed over, in order.
 */
function harness(initial = 0, pageSize = 100) {
  const ran: string[] = [];
  const reads: number[] = [];
  let timer: { fn: () => void; ms: number } | undefined;
  let answer: ((rows: Row[]) => void) | undefined;
  let fail: ((err: Error) => void) | undefined;
  let clock = 0;
  const gate = createOrderGate<Row>({
    graceMs: 500,
    tickMs: 100,
    pageSize,
    read: (after) => {
      reads.push(after);
      ran.push(`read(${after})`);
      return new Promise<Row[]>((resolve, reject) => {
        answer = resolve;
        fail = reject;
      });
    },
    hand: (rows) => ran.push(`rows ${rows.map((r) => r.id).join(',')}`),
    onError: () => ran.push('error'),
    setTimer: (fn, ms) => (timer = { fn, ms }),
    clearTimer: () => (timer = undefined),
    now: () => clock,
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
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    gate,
    ran,
    reads,
    batch,
    get timer() {
      return timer;
    },
    advance(ms: number) {
      clock += ms;
    },
    tick() {
      const t = timer;
      timer = undefined;
      t?.fn();
    },
    async answer(ids: number[]) {
      const a = answer;
      answer = undefined;
      a?.(ids.map((id) => ({ id })));
      await settle();
    },
    async fail() {
      fail?.(new Error('store away'));
      await settle();
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('the visibility-order gate', () => {
  it('hands batches over at once when they come in commit order', () => {
    const h = harness();
    h.gate.offer(h.batch('a', 0, 3));
    h.gate.offer(h.batch('b', 3, 5));
    expect(h.ran).toEqual(['a', 'b']);
    expect(h.gate.state()).toMatchObject({ through: 5, pending: 0 });
    expect(h.timer).toBeUndefined();
  });

  it('holds a batch until the one committed before it arrives, then hands both over in order', () => {
    const h = harness();
    h.gate.offer(h.batch('later', 3, 5));
    expect(h.ran).toEqual([]);
    expect(h.timer?.ms).toBe(500);
    h.gate.offer(h.batch('earlier', 0, 3));
    expect(h.ran).toEqual(['earlier', 'later']);
    expect(h.timer).toBeUndefined();
  });

  it('passes batches that stored nothing (relays, presence) once everything before them is through', () => {
    const h = harness(10);
    h.gate.offer(h.batch('relay', 10, 10));
    h.gate.offer(h.batch('presence', 12, 12));
    h.gate.offer(h.batch('messages', 10, 12));
    expect(h.ran).toEqual(['relay', 'messages', 'presence']);
  });

  it('reads the store after the grace, hands the rows over in order with the waiting batch in its place, and leaves read ids out of a late batch', async () => {
    const h = harness();
    const skips: number[] = [];
    h.gate.offer(h.batch('after the gap', 4, 6));
    h.tick();
    expect(h.reads).toEqual([0]);
    // Arrives while the store is being read: it waits for the read.
    await h.answer([1, 2, 3, 4, 5, 6]);
    expect(h.ran).toEqual(['read(0)', 'rows 1,2,3,4', 'after the gap']);
    h.gate.offer(h.batch('the lost batch, late', 0, 4, skips));
    expect(h.ran.at(-1)).toBe('the lost batch, late');
    expect(skips).toEqual([6]);
    expect(h.gate.state()).toMatchObject({ through: 6, filledThrough: 6, pending: 0 });
  });

  it('reads commits it never heard of (the poll saw them) once the grace has passed', async () => {
    const h = harness(2);
    h.gate.observe(9);
    expect(h.timer?.ms).toBe(500);
    h.tick();
    await h.answer([3, 5, 9]);
    expect(h.ran).toEqual(['read(2)', 'rows 3,5,9']);
    expect(h.gate.state()).toMatchObject({ through: 9, known: 9 });
  });

  it('does not read when the batch the poll announced arrives within the grace', () => {
    const h = harness();
    h.gate.observe(3);
    h.gate.offer(h.batch('a', 0, 3));
    expect(h.timer).toBeUndefined();
    expect(h.reads).toEqual([]);
  });

  it('holds everything offered before it starts, and skips what predates its start', () => {
    const ran: string[] = [];
    const skips: number[] = [];
    const gate = createOrderGate<Row>({
      graceMs: 100,
      tickMs: 100,
      pageSize: 10,
      read: async () => [],
      hand: () => undefined,
      onError: () => undefined,
      setTimer: () => 1,
      clearTimer: () => undefined,
    });
    gate.offer({ prev: 5, last: 8, run: (skip) => (ran.push('x'), skips.push(skip)) });
    expect(ran).toEqual([]);
    gate.start(8);
    expect(ran).toEqual(['x']);
    expect(skips).toEqual([8]);
  });

  describe('while the bus is down', () => {
    it('reads everything after the last id handed over on every tick, in one read, and moves on to what it did not see', async () => {
      const h = harness(10);
      h.gate.setBus(false);
      expect(h.timer?.ms).toBe(100);
      h.tick();
      await h.answer([11, 12, 15]);
      expect(h.ran).toEqual(['read(10)', 'rows 11,12,15']);
      expect(h.timer?.ms).toBe(100);
      h.tick();
      await h.answer([]);
      h.tick();
      expect(h.reads).toEqual([10, 15, 15]);
    });

    it("reads at once for this node's own batch, which goes out whole in its place among the others' rows", async () => {
      const h = harness(10);
      h.gate.setBus(false);
      // Committed here as 13..14 after the others' 11..12; 15 came later from another node.
      h.gate.offer(h.batch('own', 12, 14));
      expect(h.reads).toEqual([10]);
      await h.answer([11, 12, 13, 14, 15]);
      expect(h.ran).toEqual(['read(10)', 'rows 11,12', 'own', 'rows 15']);
      expect(h.gate.state()).toMatchObject({ through: 15, pending: 0 });
    });

    it('hands over a batch that stored nothing once the read shows nothing before it is missing', async () => {
      const h = harness(10);
      h.gate.setBus(false);
      h.gate.offer(h.batch('presence', 12, 12));
      await h.answer([11]);
      expect(h.ran).toEqual(['read(10)', 'rows 11', 'presence']);
    });

    it('reads page after page at once while pages come back full, so a backlog is gone in one go', async () => {
      const h = harness(0, 3);
      h.gate.setBus(false);
      h.tick();
      await h.answer([1, 2, 3]);
      await h.answer([4, 5, 6]);
      await h.answer([7]);
      expect(h.reads).toEqual([0, 3, 6]);
      expect(h.ran.filter((r) => r.startsWith('rows'))).toEqual(['rows 1,2,3', 'rows 4,5,6', 'rows 7']);
      expect(h.timer?.ms).toBe(100);
    });

    it('waits a tick after a failed read instead of trying again at once', async () => {
      const h = harness(0);
      h.gate.setBus(false);
      h.gate.offer(h.batch('own', 1, 2));
      await h.fail();
      expect(h.ran).toEqual(['read(0)', 'error']);
      expect(h.timer?.ms).toBe(100);
      h.tick();
      await h.answer([1, 2]);
      expect(h.ran.slice(2)).toEqual(['read(0)', 'rows 1', 'own']);
    });

    it('when the bus is back, reads what is left at once, and leaves out of late batches what it handed over', async () => {
      const h = harness(0);
      const skips: number[] = [];
      h.gate.setBus(false);
      h.tick();
      await h.answer(range(1, 40));
      h.gate.observe(50);
      h.gate.setBus(true);
      expect(h.reads).toEqual([0, 40]);
      // A batch published just before the outage ended arrives during the read.
      h.gate.offer(h.batch('late, read already', 38, 45, skips));
      h.gate.offer(h.batch('next', 50, 52));
      await h.answer(range(41, 50));
      expect(h.ran.slice(-4)).toEqual(['read(40)', 'late, read already', 'rows 46,47,48,49,50', 'next']);
      expect(skips).toEqual([40]);
      expect(h.gate.state()).toMatchObject({ through: 52, bus: true, pending: 0 });
    });

    it('says how long it has known of a commit it has not handed over', async () => {
      const h = harness(0);
      h.gate.observe(5);
      expect(h.gate.behindMs()).toBe(0);
      h.advance(1500);
      expect(h.gate.behindMs()).toBe(1500);
      h.tick();
      // Learned of while the read (which cannot see it) is under way.
      h.gate.observe(9);
      await h.answer([1, 2, 3, 4, 5]);
      // Still behind on 6..9, learned of 1.5 s later.
      h.advance(100);
      expect(h.gate.behindMs()).toBe(100);
      h.tick();
      await h.answer([9]);
      expect(h.gate.behindMs()).toBe(0);
    });
  });
});
