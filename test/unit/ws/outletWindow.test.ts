// The outlet's read window: frames past the window unread wait for the client's pong, so a stalled
// dashboard costs no writes once it is a window behind, and a reader gets more as it proves it read.
// The window starts at 8 KB and doubles with each pong up to 128 KB.
import { describe, expect, it } from 'vitest';
import { burst, fakeOutlet, FRAME } from '../../helpers/fakeOutlet.js';

const KB = 1024;

const outlet = (softBytes = 512 * KB) => fakeOutlet({ softBytes, hardBytes: 2 * softBytes, graceMs: 3_000, stallMs: 60_000 });

describe('outlet read window', () => {
  it('holds frames past 8 KB unread for a client that has not answered yet, and cuts off no one', () => {
    const { o, ws, slow } = outlet();
    expect(burst(o, ws, 400)).toBe(8);
    expect(ws.pings.length).toBe(1);
    expect(slow).toEqual([]);
  });

  it('lets a reader have up to 128 KB unread: each pong releases what it proves read and doubles the window', () => {
    const { o, ws, pong } = outlet(512 * KB);
    const written = [burst(o, ws, 600)];
    for (let i = 0; i < 5; i++) {
      pong();
      written.push(ws.written.length);
    }
    // The first ping went at 2 KB (a quarter of 8), so its pong proves 2 read and opens a 16 KB
    // window: 2 + 16 written. Each later ping goes once the release is written, so its pong proves
    // everything read and the window doubles again: 18 + 32, 50 + 64, 114 + 128, then 128 KB at a time.
    expect(written).toEqual([8, 18, 50, 114, 242, 370]);
    expect(ws.written.every((t) => t === FRAME)).toBe(true);
  });

  it('writes nothing more to a reader that never answers', () => {
    const { o, ws } = outlet(512 * KB);
    expect(burst(o, ws, 600)).toBe(8);
    expect(burst(o, ws, 600)).toBe(0);
  });

  it('stops writing to a reader it cut off at once, asks for the close once, and takes no more frames', () => {
    // Hard bound 128 KB: a reader that never answers is cut off once 128 KB wait behind the window.
    const { o, ws, slow } = outlet(64 * KB);
    expect(burst(o, ws, 400)).toBe(8);
    expect(slow).toEqual(['slow']);
    expect(o.closing).toBe(true);
    expect(o.congested).toBe(false);
    expect(burst(o, ws, 100)).toBe(0);
    expect(slow).toEqual(['slow']);
  });
});
