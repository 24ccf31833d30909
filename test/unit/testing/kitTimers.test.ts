import { describe, expect, it } from 'vitest';
import { createSimulatedTimers } from '../../../src/testing/kitTimers.js';

describe('the kit simulated timers', () => {
  it('runs nothing until advanced, then every due timer in due order at its own time', async () => {
    const timers = createSimulatedTimers(1_000);
    const ran: Array<[string, number]> = [];
    timers.setTimeout(() => ran.push(['b', timers.now()]), 200);
    timers.setTimeout(() => ran.push(['a', timers.now()]), 100);
    timers.setTimeout(() => ran.push(['a2', timers.now()]), 100);
    const late = timers.setTimeout(() => ran.push(['late', timers.now()]), 1_000);
    expect(ran).toEqual([]);
    await timers.advance(150);
    expect(ran).toEqual([
      ['a', 1_100],
      ['a2', 1_100],
    ]);
    expect(timers.now()).toBe(1_150);
    timers.clearTimeout(late);
    await timers.advance(10_000);
    expect(ran.map(([name]) => name)).toEqual(['a', 'a2', 'b']);
    expect(timers.now()).toBe(11_150);
  });

  it('repeats intervals until cleared, and runs timers that timers set within the window', async () => {
    const timers = createSimulatedTimers(0);
    const ticks: number[] = [];
    const interval = timers.setInterval(() => {
      ticks.push(timers.now());
      if (ticks.length === 2) timers.setTimeout(() => ticks.push(-timers.now()), 5);
    }, 10);
    await timers.advance(35);
    expect(ticks).toEqual([10, 20, -25, 30]);
    timers.clearInterval(interval);
    await timers.advance(100);
    expect(ticks).toHaveLength(4);
  });

  it('lets what a timer started finish before the next one runs', async () => {
    const timers = createSimulatedTimers(0);
    const order: string[] = [];
    timers.setTimeout(() => void Promise.resolve().then(() => order.push('first, settled')), 1);
    timers.setTimeout(() => order.push('second'), 2);
    await timers.advance(2);
    expect(order).toEqual(['first, settled', 'second']);
  });

  it('refuses to go back in time', async () => {
    await expect(createSimulatedTimers().advance(-1)).rejects.toThrow('clock.advance needs a duration of 0 or more, got -1');
  });
});
