// A reader's ping counts only the time the hub could have read its pong. While the hub's own loop is
// held (a long run, a GC pause, a paused process), a pong that arrived waits unread in the kernel:
// the first delivery after the hold must not cut off the reader for it. A reader that really stopped
// (the loop free, no pong) is still cut off after STALL_MS.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { burst, fakeOutlet } from '../../helpers/fakeOutlet.js';
import { STALL_MS } from '../../../src/ws/open.js';

const KB = 1024;
const bounds = { softBytes: 512 * KB, hardBytes: 1024 * KB, graceMs: 3_000, stallMs: STALL_MS };

let clock = 0;
let held = 0;
/** Time passes; `heldMs` of it the hub's loop was held. */
const pass = (ms: number, heldMs = 0) => {
  clock += ms;
  held += heldMs;
};

beforeEach(() => {
  clock = 0;
  held = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => clock);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A reader past its first window: 8 frames written, a ping in flight, the rest waiting for its pong. */
function readerWaitingForPong() {
  const reader = fakeOutlet(bounds, { heldMs: () => held });
  expect(burst(reader.o, reader.ws, 20)).toBe(8);
  expect(reader.ws.pings).toHaveLength(1);
  return reader;
}

describe('a reader’s ping while the hub’s loop is held', () => {
  it('does not cut off a reader whose ping aged past STALL_MS only while the hub was held', () => {
    const { o, ws, slow, pong } = readerWaitingForPong();
    pass(STALL_MS + 1_000, STALL_MS + 1_000);
    expect(burst(o, ws, 1)).toBe(0);
    expect(slow).toEqual([]);
    // Its pong, read once the loop turns, lets the waiting frames out.
    pong();
    expect(ws.written.length).toBeGreaterThan(8);
    expect(slow).toEqual([]);
  });

  it('counts the time outside the hold: free, then held, then free past STALL_MS is a stall', () => {
    const { o, ws, slow } = readerWaitingForPong();
    pass(STALL_MS / 2);
    pass(2 * STALL_MS, 2 * STALL_MS);
    expect(burst(o, ws, 1)).toBe(0);
    expect(slow).toEqual([]);
    pass(STALL_MS / 2 + 1);
    burst(o, ws, 1);
    expect(slow).toEqual(['slow']);
  });

  it('only counts holds after the ping went out', () => {
    pass(10_000, 10_000);
    const { o, ws, slow } = readerWaitingForPong();
    pass(STALL_MS + 1);
    burst(o, ws, 1);
    expect(slow).toEqual(['slow']);
  });

  it('still cuts off a reader that stopped while the loop was free', () => {
    const { o, ws, slow } = readerWaitingForPong();
    pass(STALL_MS - 1);
    burst(o, ws, 1);
    expect(slow).toEqual([]);
    pass(2);
    burst(o, ws, 1);
    expect(slow).toEqual(['slow']);
    expect(o.closing).toBe(true);
  });
});
