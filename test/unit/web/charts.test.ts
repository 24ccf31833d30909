// The dashboard's pure helpers behind the pictures and the screens item by item: chart values as
// text, report readings rounded, connection markers as words, pasted diffs and code fenced, the
// node line of the Actors page, and an approval's title.
import { describe, expect, it } from 'vitest';
import { latestIndex, niceScale, ticksFor } from '../../../web/src/components/charts/scale.js';
import { formatValue } from '../../../web/src/components/charts/types.js';
import { fencePasted, looksLikeCode, looksLikeDiff } from '../../../web/src/lib/pastedCode.js';
import { isMarker, reading, reportText, roundReadings } from '../../../web/src/lib/reportText.js';
import { nodeOf } from '../../../web/src/pages/actors/nodeInfo.js';
import { decisionTitle } from '../../../web/src/pages/chat/decision.js';

describe('chart values', () => {
  it('shows whole numbers as they are and others to two decimals at most, with the unit', () => {
    expect(formatValue(1234)).toBe('1,234');
    expect(formatValue(-3.4567, '°C')).toBe('-3.46 °C');
    expect(formatValue(0.1)).toBe('0.1');
    expect(formatValue(237.84, 'ms')).toBe('238 ms');
    expect(formatValue(null)).toBe('–');
  });
});

describe('chart y axes', () => {
  const counts = { zero: true, whole: true };
  const durations = { zero: true, whole: false };
  const readings = { zero: false, whole: false };

  it('gives counts a round top with a tick at both ends, never a lone 0', () => {
    expect(niceScale(0, 4, 3, counts)).toEqual({ range: [0, 4], ticks: [0, 2, 4] });
    expect(niceScale(0, 7, 3, counts)).toEqual({ range: [0, 10], ticks: [0, 5, 10] });
    expect(niceScale(0, 350, 5, counts)).toEqual({ range: [0, 400], ticks: [0, 100, 200, 300, 400] });
    // Nothing counted yet, or no data at all: still a scale up to 1, in whole steps.
    expect(niceScale(0, 0, 3, counts)).toEqual({ range: [0, 1], ticks: [0, 1] });
    expect(niceScale(null, null, 3, counts)).toEqual({ range: [0, 1], ticks: [0, 1] });
  });

  it('gives durations round steps from 0, fractions included', () => {
    expect(niceScale(1.2, 228, 3, durations)).toEqual({ range: [0, 400], ticks: [0, 200, 400] });
    expect(niceScale(0.3, 0.9, 3, durations)).toEqual({ range: [0, 1], ticks: [0, 0.5, 1] });
    expect(niceScale(0, 0.04, 3, durations).ticks).toEqual([0, 0.02, 0.04]);
  });

  it('gives readings a range around their values, below zero included', () => {
    expect(niceScale(-3.4567, 5, 3, readings)).toEqual({ range: [-5, 5], ticks: [-5, 0, 5] });
    expect(niceScale(20, 25, 5, readings)).toEqual({ range: [20, 26], ticks: [20, 22, 24, 26] });
    expect(niceScale(80, 80, 3, readings).ticks).toEqual([70, 80, 90]);
  });

  it('never gives more ticks than fit, and at least the two ends', () => {
    for (const max of [1, 3, 9, 11, 99, 101, 12_345])
      for (const n of [2, 3, 4, 6]) {
        const { range, ticks } = niceScale(0, max, n, counts);
        expect(ticks.length, `${max} in ${n}`).toBeLessThanOrEqual(n);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(range[1]).toBeGreaterThanOrEqual(max);
        expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
      }
    expect(ticksFor(60)).toBe(3);
    expect(ticksFor(10)).toBe(2);
    expect(ticksFor(1000)).toBe(6);
  });

  it('shows the latest point in the legend until the pointer is over the chart', () => {
    expect(latestIndex([[1, 0, 0]])).toBe(2);
    expect(
      latestIndex([
        [1, null, null],
        [null, 2, null],
      ]),
    ).toBe(1);
    expect(latestIndex([[null, null]])).toBeNull();
  });
});

describe('report text', () => {
  it('reads the hub’s connection markers as words', () => {
    expect(reportText('websocket_connected')).toBe('connected');
    expect(reportText('websocket_disconnected')).toBe('disconnected');
    expect(isMarker('websocket_connected')).toBe(true);
    expect(isMarker('Weather in Oslo: 3 °C')).toBe(false);
  });

  it('rounds readings with more decimals than anyone measures, and leaves versions and addresses alone', () => {
    expect(roundReadings('Weather in Oslo: -3.4567 °C, light snow')).toBe('Weather in Oslo: -3.46 °C, light snow');
    expect(roundReadings('upgraded to 1.2.3 on 10.0.0.1, took 12.5 s')).toBe('upgraded to 1.2.3 on 10.0.0.1, took 12.5 s');
    expect(roundReadings('ratio 0.333333')).toBe('ratio 0.33');
    expect(reading(12.3456)).toBe('12.35');
  });
});

describe('pasted code', () => {
  const diff = ['diff --git a/a.ts b/a.ts', '--- a/a.ts', '+++ b/a.ts', '@@ -1,2 +1,2 @@', '-const a = 1;', '+const a = 2;'].join('\n');
  const code = ['function add(a, b) {', '  const sum = a + b;', '  return sum;', '}'].join('\n');

  it('fences a unified diff as diff and lines of source as code', () => {
    expect(looksLikeDiff(diff)).toBe(true);
    expect(fencePasted(diff)).toBe(`\`\`\`diff\n${diff}\n\`\`\``);
    expect(looksLikeCode(code)).toBe(true);
    expect(fencePasted(`${code}\n\n`)).toBe(`\`\`\`\n${code}\n\`\`\``);
  });

  it('leaves prose, short lines and text that already has fences as they are', () => {
    const prose = 'Could you look at the weather agent?\nIt stopped reporting an hour ago.\nThanks!';
    expect(fencePasted(prose)).toBe(prose);
    expect(fencePasted('return 1;')).toBe('return 1;');
    const fenced = '```ts\nconst a = 1;\n```';
    expect(fencePasted(fenced)).toBe(fenced);
  });
});

describe('the Actors page’s node line', () => {
  it('reads the node of a cluster hub and nothing from an older or single hub', () => {
    expect(nodeOf({ router: {}, node: { id: 'hub-a', cluster: true, leader: true, peers: ['hub-b', 7] } })).toEqual({
      id: 'hub-a',
      cluster: true,
      leader: true,
      peers: ['hub-b'],
    });
    expect(nodeOf({ router: {} })).toBeUndefined();
    expect(nodeOf({ node: { cluster: true } })).toBeUndefined();
    expect(nodeOf(undefined)).toBeUndefined();
  });
});

describe('approval titles', () => {
  const person = (id: number) => (id === 1 ? 'you' : `user #${id}`);
  it('says the outcome, who decided and when; an expiry has no one', () => {
    const at = '2026-01-05T10:04:00.000Z';
    const time = new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    expect(decisionTitle('APPROVED', { by: 1, at }, person)).toBe(`Approved by you at ${time}`);
    expect(decisionTitle('REJECTED', { by: 5, at }, person)).toBe(`Rejected by user #5 at ${time}`);
    expect(decisionTitle('EXPIRED', { by: null, at }, person)).toBe(`Expired at ${time}`);
    expect(decisionTitle('APPROVED', undefined, person)).toBe('Approved');
  });
});
