// The carried mark of a remote agent's proxy: a low-water mark over chats carried concurrently per
// conversation, chats kept for the back-log holding it, and nothing taken twice; and the one line a
// sender gets when a call fails.
import { describe, expect, it } from 'vitest';
import { CarryLedger, failureLine } from '../../../../src/a2a/remote/carry.js';

describe('CarryLedger', () => {
  it('takes each chat once, and none at or below the mark', () => {
    const ledger = new CarryLedger(10);
    expect(ledger.take(10)).toBe(false);
    expect(ledger.take(11)).toBe(true);
    expect(ledger.take(11)).toBe(false);
    expect(ledger.finish(11)).toBe(11);
    expect(ledger.take(11)).toBe(false);
  });

  it('moves the mark only over finished chats: one finished early waits for those below it', () => {
    const ledger = new CarryLedger(0);
    for (const id of [3, 5, 7]) ledger.take(id);
    expect(ledger.finish(7)).toBeUndefined();
    expect(ledger.carried).toBe(0);
    expect(ledger.take(7)).toBe(false);
    expect(ledger.finish(3)).toBe(3);
    expect(ledger.finish(5)).toBe(7);
    expect(ledger.finish(5)).toBeUndefined();
  });

  it('holds the mark below a kept chat until it is taken again and finished', () => {
    const ledger = new CarryLedger(0);
    ledger.take(4);
    ledger.take(6);
    ledger.keep(4);
    expect(ledger.hasKept).toBe(true);
    expect(ledger.finish(6)).toBeUndefined();
    expect(ledger.take(6)).toBe(false);
    expect(ledger.take(4)).toBe(true);
    expect(ledger.hasKept).toBe(false);
    expect(ledger.finish(4)).toBe(6);
  });

  it('gives up a kept chat the back-log no longer lists (past its bound), so the mark moves on', () => {
    const ledger = new CarryLedger(0);
    ledger.take(2);
    ledger.take(3);
    ledger.keep(2);
    ledger.finish(3);
    expect(ledger.expire(new Set([2, 3]))).toBeUndefined();
    expect(ledger.expire(new Set([3]))).toBe(3);
    expect(ledger.hasKept).toBe(false);
  });
});

describe('failureLine', () => {
  it('names the error in one short line, without the credential or a bearer token', () => {
    const line = failureLine(new Error('401 from agent\nsent s3cr3t-cred with Authorization: Bearer abc.def'), ['s3cr3t-cred']);
    expect(line).toBe('(the call to the agent failed: 401 from agent sent [redacted] with Authorization: Bearer [redacted])');
    const long = failureLine(new Error('x'.repeat(500)), []);
    expect(long.length).toBeLessThan(260);
    expect(long).toContain('…');
    expect(failureLine('', [])).toBe('(the call to the agent failed: no reason given)');
  });
});
