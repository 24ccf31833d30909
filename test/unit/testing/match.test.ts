import { describe, expect, it } from 'vitest';
import { describeMatcher, matches } from '../../../src/testing/match.js';
import { toMs } from '../../../src/testing/duration.js';

describe('matches', () => {
  const frame = { type: 'CHAT', sender_id: 4, payload: 'sunny in Oslo', meta: { tags: ['a', 'b'], n: null } };
  it.each([
    [{ type: 'CHAT' }, true],
    [{ type: 'CHAT', sender_id: 5 }, false],
    [{ payload: /oslo/i }, true],
    [{ payload: /bergen/ }, false],
    [{ meta: { tags: ['a', 'b'] } }, true],
    [{ meta: { tags: ['a'] } }, false],
    [{ meta: { n: null } }, true],
    [{ meta: { n: undefined } }, false],
    [{ missing: undefined }, true],
    [{ sender_id: (id: number) => id > 3 }, true],
    [(f: { payload: string }) => f.payload.startsWith('sunny'), true],
    [{ payload: { text: 'x' } }, false],
    [{}, true],
  ])('%o → %s', (pattern, expected) => {
    expect(matches(frame, pattern)).toBe(expected);
  });

  it('describes matchers in one line, RegExps and predicates by name', () => {
    expect(describeMatcher({ type: 'CHAT', payload: /^sunny/ })).toBe('{"type":"CHAT","payload":"/^sunny/"}');
    expect(describeMatcher({ sender_id: function isAlice() {} })).toBe('{"sender_id":"<predicate isAlice>"}');
    expect(describeMatcher(function isAck() {})).toBe('the predicate isAck');
  });
});

describe('toMs', () => {
  it.each([
    ['10m', 600_000],
    ['30s', 30_000],
    ['250ms', 250],
    ['1.5h', 5_400_000],
    ['2d', 172_800_000],
    [0, 0],
    [1234, 1234],
  ])('%s → %d ms', (input, ms) => expect(toMs(input)).toBe(ms));

  it('refuses what is not a duration, naming the option', () => {
    expect(() => toMs('ten minutes', 'clock.advance')).toThrow(
      `clock.advance "ten minutes" is not a duration: write it like '10m', '30s', '250ms' or a number of milliseconds`,
    );
    expect(() => toMs('10', 'within')).toThrow('within "10" is not a duration');
    expect(() => toMs(-1, 'for')).toThrow('for must be 0 or more milliseconds, got -1');
  });
});
