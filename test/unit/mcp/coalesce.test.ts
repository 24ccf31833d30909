// The coalescer behind hub://agents notifications: a lone change is told at once, a burst becomes
// at most one more call per window, and a quiet window ends the cycle.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesce } from '../../../src/mcp/coalesce.js';

describe('coalesce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells the first change at once and a burst after it once, when the window ends', () => {
    const fire = vi.fn();
    const c = coalesce(1000, fire);
    c.poke();
    expect(fire).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 100_000; i++) c.poke();
    expect(fire).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(999);
    expect(fire).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(fire).toHaveBeenCalledTimes(2);
    // A quiet window after it: nothing more, and the next change is told at once again.
    vi.advanceTimersByTime(5000);
    expect(fire).toHaveBeenCalledTimes(2);
    c.poke();
    expect(fire).toHaveBeenCalledTimes(3);
  });

  it('keeps to one call per window under a steady stream of changes', () => {
    const fire = vi.fn();
    const c = coalesce(1000, fire);
    for (let ms = 0; ms < 10_000; ms += 10) {
      c.poke();
      vi.advanceTimersByTime(10);
    }
    // 10 s of changes every 10 ms: the first at once, then one per window.
    expect(fire.mock.calls.length).toBeGreaterThanOrEqual(10);
    expect(fire.mock.calls.length).toBeLessThanOrEqual(11);
  });

  it('drops what is pending when stopped', () => {
    const fire = vi.fn();
    const c = coalesce(1000, fire);
    c.poke();
    c.poke();
    c.stop();
    vi.advanceTimersByTime(5000);
    expect(fire).toHaveBeenCalledTimes(1);
  });
});
