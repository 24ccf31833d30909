// Slow consumers' closes are paced: a fan-out that finds a thousand stalled readers at once closes
// them a few per loop turn (about a millisecond's worth), so the loop keeps serving everyone else.
import { describe, expect, it } from 'vitest';
import { ClosePacer } from '../../../src/ws/closePacer.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock each close moves forward by `costMs`. */
function costly(costMs: number) {
  let t = 0;
  return { now: () => t, spend: () => (t += costMs) };
}

describe('ClosePacer', () => {
  it('spends its budget per loop turn, in the order the closes were asked for, and nothing in the turn that asked', async () => {
    const clock = costly(0.125);
    const pacer = new ClosePacer(1, clock.now);
    const closed: number[] = [];
    for (let i = 0; i < 25; i++)
      pacer.add({
        closeNow: () => {
          clock.spend();
          closed.push(i);
        },
      });
    expect(closed).toEqual([]);
    expect(pacer.pending).toBe(25);
    const perTurn: number[] = [];
    while (pacer.pending > 0) {
      const before = closed.length;
      await nextTurn();
      perTurn.push(closed.length - before);
    }
    // 0.125 ms each against a 1 ms budget: eight per turn (the eighth ends the millisecond).
    expect(perTurn).toEqual([8, 8, 8, 1]);
    expect(closed).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('closes at least one per turn however slow a close is', async () => {
    const clock = costly(5);
    const pacer = new ClosePacer(1, clock.now);
    const closed: number[] = [];
    for (let i = 0; i < 3; i++) pacer.add({ closeNow: () => closed.push(clock.spend()) });
    const perTurn: number[] = [];
    while (pacer.pending > 0) {
      const before = closed.length;
      await nextTurn();
      perTurn.push(closed.length - before);
    }
    expect(perTurn).toEqual([1, 1, 1]);
  });

  it('takes closes added while it runs, and starts again after it emptied', async () => {
    const clock = costly(0.6);
    const pacer = new ClosePacer(1, clock.now);
    const closed: string[] = [];
    pacer.add({
      closeNow: () => {
        clock.spend();
        closed.push('a');
        pacer.add({ closeNow: () => closed.push('c') });
      },
    });
    pacer.add({ closeNow: () => (clock.spend(), closed.push('b')) });
    while (pacer.pending > 0) await nextTurn();
    expect(closed).toEqual(['a', 'b', 'c']);
    pacer.add({ closeNow: () => closed.push('d') });
    await nextTurn();
    expect(closed).toEqual(['a', 'b', 'c', 'd']);
    expect(pacer.pending).toBe(0);
  });
});
