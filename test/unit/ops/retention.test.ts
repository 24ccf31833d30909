// Retention's cadence on simulated time: the first sweep 5 s after start, then one a minute, each
// cutting at the time it starts; a sweep still running when the next falls due is followed by exactly
// one more; stop leaves no timer. The store is a fake that records each prune and answers when told.
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/metrics/registry.js';
import { startRetention } from '../../../src/ops/retention.js';
import { createSimulatedTimers } from '../../../src/testing/simulatedTimers.js';

const START = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const silent = { info: () => undefined, warn: () => undefined };

function setup() {
  const timers = createSimulatedTimers(START);
  /** The `before` of each prune call, as ms since START, and how to answer it. */
  const calls: Array<{ before: number; answer: () => void }> = [];
  let slow = false;
  const store = {
    pruneMessages: ({ before }: { before: string }) =>
      new Promise<Record<string, number>>((resolve) => {
        const answer = () => resolve({});
        calls.push({ before: Date.parse(before) - START, answer });
        if (!slow) answer();
      }),
  };
  const retention = startRetention({
    store,
    retentionMs: HOUR,
    clock: () => new Date(timers.now()).toISOString(),
    timers,
    logger: silent,
    metrics: createMetrics({ enabled: false }).factory,
  });
  return { timers, calls, retention, setSlow: (v: boolean) => (slow = v) };
}

describe('retention on the hub timers', () => {
  it('sweeps 5 s after start, then once a minute, each cutting one retention before it starts', async () => {
    const { timers, calls, retention } = setup();
    await timers.advance(4_999);
    expect(calls).toEqual([]);
    await timers.advance(1);
    await timers.advance(2 * 60_000);
    expect(calls.map((c) => c.before)).toEqual([5_000 - HOUR, 65_000 - HOUR, 125_000 - HOUR]);
    await retention.stop();
    expect(timers.pending()).toBe(0);
    await timers.advance(HOUR);
    expect(calls).toHaveLength(3);
  });

  it('follows a sweep that outran its minute with one more, cut when it starts, never a pile of them', async () => {
    const { timers, calls, retention, setSlow } = setup();
    setSlow(true);
    await timers.advance(5_000 + 3 * 60_000);
    // One sweep is stuck on the store; the three that fell due meanwhile wait as one.
    expect(calls.map((c) => c.before)).toEqual([5_000 - HOUR]);
    setSlow(false);
    calls[0]!.answer();
    await timers.advance(0);
    expect(calls.map((c) => c.before)).toEqual([5_000 - HOUR, 185_000 - HOUR]);
    await timers.advance(60_000);
    expect(calls.map((c) => c.before)).toEqual([5_000 - HOUR, 185_000 - HOUR, 245_000 - HOUR]);
    await retention.stop();
  });

  it('stopped before the first sweep, never sweeps', async () => {
    const { timers, calls, retention } = setup();
    await retention.stop();
    expect(timers.pending()).toBe(0);
    await timers.advance(HOUR);
    expect(calls).toEqual([]);
  });
});
