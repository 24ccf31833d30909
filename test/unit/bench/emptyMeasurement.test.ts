// A load run in which no delivery arrived (a stalled or fuzzed hub on a loaded machine) has no
// latency: its percentiles are NaN, and must stay figures on their way from a generator process
// (whose IPC channel is JSON, which makes NaN null) to the line and the checks that report them,
// shown as "–" beside the problems that say why, instead of crashing the whole attack suite.
import { describe, expect, it } from 'vitest';
import { runLine, type RunRow } from '../../../bench/phases/load.js';
import { fromWire, toWire } from '../../../bench/lib/rpc.js';
import { ms, percentiles } from '../../../bench/lib/stats.js';
import type { Usage } from '../../../bench/lib/usage.js';
import { atMost } from '../../../chaos/lib/verdict.js';

/** What a value becomes over Node's JSON IPC channel. */
const overIpc = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function emptyRun(latency: RunRow['latency'], loopP99: number): RunRow {
  const usage: Usage = {
    serverCpuPercent: 12.4,
    serverThreads: { main: 9.6, others: [] },
    generatorCpuPercent: {},
    machineCpuPercent: 150,
    foreignCpuPercent: 0,
    loop: { p50: loopP99, p99: loopP99, max: loopP99, mean: loopP99, utilisation: 0 },
    pingMs: percentiles([]),
    fsyncMs: percentiles([]),
    serverRssMb: 80,
  };
  return {
    server: 'hub',
    label: 'open 200/s',
    mode: { kind: 'open', rate: 200 },
    durationMs: 4000,
    sent: 800,
    sendRate: 200,
    deliveredRate: 0,
    messageRate: 0,
    deliveredPerSecond: [0, 0, 0, 0],
    latency,
    latencyP50PerSecond: [NaN, NaN, NaN, NaN],
    backlogGrowing: false,
    acked: 800,
    errors: 0,
    missing: 800,
    cutOff: 0,
    missingOnCutOff: 0,
    duplicates: 0,
    unexpected: 0,
    otherFrames: 0,
    usage,
    maxScheduleLagMs: 0,
    problems: ['800 of 800 deliveries never arrived'],
  };
}

describe('an empty measurement', () => {
  it('has NaN percentiles, which come back as NaN over the generators’ channel (plain JSON makes them null)', () => {
    const empty = percentiles([]);
    expect(empty).toEqual({ count: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN });
    expect(overIpc(empty).p99).toBeNull();
    const arrived = fromWire(overIpc(toWire({ latency: empty, perSecond: [1.5, NaN, Infinity, -Infinity], label: 'x', none: null })));
    expect(arrived).toEqual({ latency: empty, perSecond: [1.5, NaN, Infinity, -Infinity], label: 'x', none: null });
  });

  it('is logged as "–" with the problems, as NaN and as the null an older channel gave', () => {
    for (const latency of [percentiles([]), overIpc(percentiles([]))]) {
      const line = runLine(emptyRun(latency, latency.p99));
      expect(line).toBe(
        'hub: open 200/s: sent 800, delivered 0/s, p50 – ms, p99 – ms, server CPU 12% (main thread 10%), loop lag p99 – ms\n' +
          '!!! FAILED: 800 of 800 deliveries never arrived',
      );
    }
  });

  it('fails a check on it instead of passing or crashing', () => {
    expect(ms(NaN)).toBe('–');
    expect(atMost('p99 with them over p99 without', NaN / NaN, 1.5, '×')).toEqual({
      what: 'p99 with them over p99 without',
      measured: '–×',
      expected: '≤ 1.50×',
      pass: false,
    });
  });
});
