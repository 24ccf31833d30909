import { describe, expect, it } from 'vitest';
import { createBusSeal } from '../../../src/cluster/bus/busSeal.js';

const secret = 'k'.repeat(32);

describe('the bus seal', () => {
  it('opens what another node of the same secret sealed, on the same channel, once', () => {
    const a = createBusSeal({ secret, nodeId: 'n1' });
    const b = createBusSeal({ secret, nodeId: 'n2' });
    const sealed = a.seal('hub:batches', '{"kind":"batch","text":"with spaces in it"}');
    expect(b.isOwn(sealed)).toBe(false);
    expect(a.isOwn(sealed)).toBe(true);
    expect(b.open('hub:batches', sealed)).toEqual({ ok: true, node: 'n1', text: '{"kind":"batch","text":"with spaces in it"}' });
    expect(b.open('hub:batches', sealed)).toEqual({ ok: false, reason: 'replayed' });
  });

  it('refuses a message without a seal, with another key, altered, or moved to another channel', () => {
    const a = createBusSeal({ secret, nodeId: 'n1' });
    const b = createBusSeal({ secret, nodeId: 'n2' });
    const stranger = createBusSeal({ secret: 'o'.repeat(32), nodeId: 'n1' });
    expect(b.open('c', '{"kind":"close-all","node":"n1","code":4001,"reason":"x"}')).toEqual({ ok: false, reason: 'unsealed' });
    expect(b.open('c', 'v1 short')).toEqual({ ok: false, reason: 'unsealed' });
    expect(b.open('c', stranger.seal('c', '{}'))).toEqual({ ok: false, reason: 'forged' });
    expect(b.open('c', a.seal('c', '{"userId":5}').replace('5', '6'))).toEqual({ ok: false, reason: 'forged' });
    expect(b.open('d', a.seal('c', '{}'))).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses a message whose time is further than the allowed skew from the receiver’s, and takes each stream’s messages in order only', () => {
    let now = 1_000_000;
    const a = createBusSeal({ secret, nodeId: 'n1', now: () => now });
    const b = createBusSeal({ secret, nodeId: 'n2', now: () => now, maxSkewMs: 30_000 });
    const first = a.seal('c', '1');
    const second = a.seal('c', '2');
    expect(b.open('c', second).ok).toBe(true);
    expect(b.open('c', first)).toEqual({ ok: false, reason: 'replayed' });
    const old = a.seal('c', '3');
    now += 31_000;
    expect(b.open('c', old)).toEqual({ ok: false, reason: 'stale' });
    // A restarted node is a new stream: its first message is taken.
    expect(b.open('c', createBusSeal({ secret, nodeId: 'n1', now: () => now }).seal('c', '4'))).toMatchObject({ ok: true, text: '4' });
  });
});
