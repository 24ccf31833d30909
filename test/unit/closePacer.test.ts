// Slow consumers' closes are paced: a fan-out that finds a thousand stalled readers at once closes
// them a few per loop turn, so the loop keeps serving everyone else in between.
import { describe, expect, it } from 'vitest';
import { ClosePacer } from '../../src/ws/closePacer.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ClosePacer', () => {
  it('closes 32 per loop turn, in the order they were found, and nothing in the turn that found them', async () => {
    const pacer = new ClosePacer(32);
    const closed: number[] = [];
    for (let i = 0; i < 100; i++) pacer.add({ closeNow: () => closed.push(i) });
    expect(closed).toEqual([]);
    expect(pacer.pending).toBe(100);
    const perTurn: number[] = [];
    while (pacer.pending > 0) {
      const before = closed.length;
      await nextTurn();
      perTurn.push(closed.length - before);
    }
    expect(perTurn).toEqual([32, 32, 32, 4]);
    expect(closed).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('takes closes added while it runs, and starts again after it emptied', async () => {
    const pacer = new ClosePacer(2);
    const closed: string[] = [];
    pacer.add({
      closeNow: () => {
        closed.push('a');
        pacer.add({ closeNow: () => closed.push('c') });
      },
    });
    pacer.add({ closeNow: () => closed.push('b') });
    while (pacer.pending > 0) await nextTurn();
    expect(closed).toEqual(['a', 'b', 'c']);
    pacer.add({ closeNow: () => closed.push('d') });
    await nextTurn();
    expect(closed).toEqual(['a', 'b', 'c', 'd']);
    expect(pacer.pending).toBe(0);
  });
});
