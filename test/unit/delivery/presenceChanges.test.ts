// The presence tap on the way to the router: listeners hear a delivery list that holds a PRESENCE,
// once per list, and nothing for lists without one or after they unsubscribe.
import { describe, expect, it, vi } from 'vitest';
import { createPresenceTap } from '../../../src/delivery/presenceChanges.js';

describe('presence tap', () => {
  it('tells each listener once per delivery list holding a presence change', () => {
    const tap = createPresenceTap();
    const first = vi.fn();
    const second = vi.fn();
    const stopFirst = tap.onChange(first);
    tap.onChange(second);
    tap.note([{ type: 'CHAT' }, { type: 'SYSTEM_LOG' }]);
    expect(first).not.toHaveBeenCalled();
    tap.note([{ type: 'CHAT' }, { type: 'PRESENCE' }, { type: 'PRESENCE' }]);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);
    stopFirst();
    tap.note([{ type: 'PRESENCE' }]);
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(2);
  });

  it('lets the same listener subscribe twice and each unsubscribe stop only its own', () => {
    const tap = createPresenceTap();
    const listener = vi.fn();
    const a = tap.onChange(listener);
    tap.onChange(listener);
    a();
    tap.note([{ type: 'PRESENCE' }]);
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
