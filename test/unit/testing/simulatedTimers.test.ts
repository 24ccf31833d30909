// Simulated time (src/testing/simulatedTimers.ts): timers run only when time is advanced, in due-time
// order, each with now() at its own due time, timers set by callbacks included; promise chains settle
// between timers. The scheduling cases are one table: what is set, how far time moves, what ran when.
import { describe, expect, it } from 'vitest';
import { createSimulatedTimers, type SimulatedTimers } from '../../../src/testing/simulatedTimers.js';

const START = Date.UTC(2026, 0, 1);

interface Case {
  name: string;
  /** Sets timers; `ran(label)` records `label@<ms since START>`. */
  setup(t: SimulatedTimers, ran: (label: string) => void): void;
  /** Each advance in turn, awaited. */
  advances: number[];
  fired: string[];
  /** Timers left after the last advance. */
  pending: number;
}

const cases: Case[] = [
  {
    name: 'timeouts run in due order, not in the order they were set',
    setup: (t, ran) => {
      t.setTimeout(() => ran('a'), 300);
      t.setTimeout(() => ran('b'), 100);
      t.setTimeout(() => ran('c'), 200);
    },
    advances: [1000],
    fired: ['b@100', 'c@200', 'a@300'],
    pending: 0,
  },
  {
    name: 'timers due at the same time run in the order they were set',
    setup: (t, ran) => {
      t.setTimeout(() => ran('a'), 100);
      t.setTimeout(() => ran('b'), 100);
    },
    advances: [100],
    fired: ['a@100', 'b@100'],
    pending: 0,
  },
  {
    name: 'a timer due later than the advance waits for the next one',
    setup: (t, ran) => {
      t.setTimeout(() => ran('a'), 100);
      t.setTimeout(() => ran('b'), 500);
    },
    advances: [200, 299, 1],
    fired: ['a@100', 'b@500'],
    pending: 0,
  },
  {
    name: 'nothing runs without an advance, and advances add up',
    setup: (t, ran) => t.setTimeout(() => ran('a'), 100),
    advances: [50, 49],
    fired: [],
    pending: 1,
  },
  {
    name: 'a timer set by a callback during the advance runs at its own due time',
    setup: (t, ran) =>
      t.setTimeout(() => {
        ran('a');
        t.setTimeout(() => ran('b'), 50);
      }, 100),
    advances: [200],
    fired: ['a@100', 'b@150'],
    pending: 0,
  },
  {
    name: 'a timer set by a callback but due after the advance waits',
    setup: (t, ran) =>
      t.setTimeout(() => {
        ran('a');
        t.setTimeout(() => ran('b'), 200);
      }, 100),
    advances: [200, 100],
    fired: ['a@100', 'b@300'],
    pending: 0,
  },
  {
    name: 'an interval runs once per period until cleared, and counts as pending',
    setup: (t, ran) => t.setInterval(() => ran('i'), 100),
    advances: [350],
    fired: ['i@100', 'i@200', 'i@300'],
    pending: 1,
  },
  {
    name: 'an interval cleared from its own callback stops',
    setup: (t, ran) => {
      let runs = 0;
      const handle = t.setInterval(() => {
        ran('i');
        if (++runs === 2) t.clearInterval(handle);
      }, 100);
    },
    advances: [1000],
    fired: ['i@100', 'i@200'],
    pending: 0,
  },
  {
    name: 'an interval and a timeout interleave by due time',
    setup: (t, ran) => {
      t.setInterval(() => ran('i'), 100);
      t.setTimeout(() => ran('a'), 150);
    },
    advances: [200],
    fired: ['i@100', 'a@150', 'i@200'],
    pending: 1,
  },
  {
    name: 'a cleared timeout never runs',
    setup: (t, ran) => {
      const handle = t.setTimeout(() => ran('a'), 100);
      t.clearTimeout(handle);
    },
    advances: [1000],
    fired: [],
    pending: 0,
  },
  {
    name: 'a timer cleared by one due at the same time does not run',
    setup: (t, ran) => {
      t.setTimeout(() => {
        ran('a');
        t.clearTimeout(later);
      }, 100);
      const later = t.setTimeout(() => ran('b'), 100);
    },
    advances: [100],
    fired: ['a@100'],
    pending: 0,
  },
  {
    name: 'a zero, negative, NaN or over-the-ceiling delay is due at once, and advance(0) runs it',
    setup: (t, ran) => {
      t.setTimeout(() => ran('zero'), 0);
      t.setTimeout(() => ran('negative'), -5);
      t.setTimeout(() => ran('nan'), Number.NaN);
      t.setTimeout(() => ran('huge'), 2 ** 31);
    },
    advances: [0],
    fired: ['zero@0', 'negative@0', 'nan@0', 'huge@0'],
    pending: 0,
  },
  {
    name: 'a zero-period interval runs once per millisecond',
    setup: (t, ran) => t.setInterval(() => ran('i'), 0),
    advances: [3],
    fired: ['i@0', 'i@1', 'i@2', 'i@3'],
    pending: 1,
  },
  {
    name: 'promise chains a timer starts settle before the next timer runs',
    setup: (t, ran) => {
      t.setTimeout(() => {
        ran('a');
        void Promise.resolve()
          .then(() => undefined)
          .then(() => ran('a-then'));
      }, 100);
      t.setTimeout(() => ran('b'), 100);
    },
    advances: [100],
    fired: ['a@100', 'a-then@100', 'b@100'],
    pending: 0,
  },
  {
    name: 'clearing an unknown handle (or none) changes nothing',
    setup: (t, ran) => {
      t.setTimeout(() => ran('a'), 10);
      t.clearTimeout(undefined);
      t.clearTimeout({});
      t.clearInterval(createSimulatedTimers(START).setTimeout(() => undefined, 10));
    },
    advances: [10],
    fired: ['a@10'],
    pending: 0,
  },
];

describe('createSimulatedTimers', () => {
  it.each(cases)('$name', async ({ setup, advances, fired, pending }) => {
    const t = createSimulatedTimers(START);
    const log: string[] = [];
    setup(t, (label) => log.push(`${label}@${t.now() - START}`));
    for (const ms of advances) await t.advance(ms);
    expect(log).toEqual(fired);
    expect(t.pending()).toBe(pending);
    expect(t.now()).toBe(START + advances.reduce((a, b) => a + b, 0));
  });

  it('starts at the time given, or at the process clock', () => {
    expect(createSimulatedTimers(START).now()).toBe(START);
    const before = Date.now();
    const t = createSimulatedTimers();
    expect(t.now()).toBeGreaterThanOrEqual(before);
    expect(t.now()).toBeLessThanOrEqual(Date.now());
  });

  it('queues advances called without waiting: the second starts where the first ended', async () => {
    const t = createSimulatedTimers(START);
    const log: number[] = [];
    t.setTimeout(() => log.push(t.now() - START), 150);
    await Promise.all([t.advance(100), t.advance(100)]);
    expect(log).toEqual([150]);
    expect(t.now()).toBe(START + 200);
  });

  it('rejects with the error a callback throws, time at its due time, and goes on after it', async () => {
    const t = createSimulatedTimers(START);
    const ran: number[] = [];
    t.setTimeout(() => {
      throw new Error('boom');
    }, 100);
    t.setTimeout(() => ran.push(t.now() - START), 200);
    await expect(t.advance(500)).rejects.toThrow('boom');
    expect(t.now()).toBe(START + 100);
    await t.advance(400);
    expect(ran).toEqual([200]);
  });

  it('refuses to move time backwards or by something that is not a number', async () => {
    const t = createSimulatedTimers(START);
    await expect(t.advance(-1)).rejects.toThrow(RangeError);
    await expect(t.advance(Number.POSITIVE_INFINITY)).rejects.toThrow(RangeError);
    expect(t.now()).toBe(START);
  });

  it("gives handles that unref like Node's, so code written for Node's timers runs unchanged", () => {
    const t = createSimulatedTimers(START);
    const handle = t.setTimeout(() => undefined, 10);
    expect(handle.unref?.()).toBe(handle);
  });
});
