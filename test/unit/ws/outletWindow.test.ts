// The outlet's read window: frames past the window unread wait for the client's pong, so a stalled
// dashboard costs no writes once it is a window behind, and a reader gets more as it proves it read.
// The window starts at 8 KB and doubles with each pong up to 128 KB.
import type uWS from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import type { WsMeter } from '../../../src/ws/metrics.js';
import { SocketOutlet } from '../../../src/ws/outlet.js';
import { createSendBatch } from '../../../src/ws/sendBatch.js';

/** A uWS socket that records writes and pings and never buffers (the kernel takes everything). */
class FakeSocket {
  readonly written: string[] = [];
  readonly pings: string[] = [];
  send(text: string): number {
    this.written.push(text);
    return 1;
  }
  cork(fn: () => void): void {
    fn();
  }
  getBufferedAmount(): number {
    return 0;
  }
  ping(tag: string): void {
    this.pings.push(tag);
  }
  end(): void {}
  close(): void {}
}

const meter = { sent: () => undefined, error: () => undefined } as unknown as WsMeter;
const KB = 1024;
const FRAME = 'x'.repeat(KB);

function outlet(softBytes = 512 * KB) {
  const ws = new FakeSocket();
  const slow: string[] = [];
  const o = new SocketOutlet({
    ws: ws as unknown as uWS.WebSocket<unknown>,
    key: 1,
    user: { id: 1, username: 'dash', role: 'MEMBER' },
    bounds: { softBytes, hardBytes: 2 * softBytes, graceMs: 3_000, stallMs: 60_000 },
    events: { slow: () => slow.push('slow'), close: () => undefined },
    batch: createSendBatch(),
    resuming: false,
    authenticatedAt: 0,
    meter,
  });
  /** Answers the ping in flight, as a client's WebSocket stack does once it has read up to it. */
  const pong = () => o.ponged(new TextEncoder().encode(ws.pings.at(-1)!).buffer as ArrayBuffer);
  return { o, ws, slow, pong };
}

/** Sends `n` 1 KB frames; returns how many were written (the rest wait for a pong). */
function burst(o: SocketOutlet, ws: FakeSocket, n: number): number {
  const before = ws.written.length;
  for (let i = 0; i < n; i++) o.deliver(FRAME);
  return ws.written.length - before;
}

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
