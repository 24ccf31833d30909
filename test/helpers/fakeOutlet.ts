// A SocketOutlet on a fake uWS socket, for the outlet's unit tests: the socket records writes and
// pings and never buffers (the kernel takes everything); the loop watch is the test's.
import type uWS from 'uWebSockets.js';
import type { WsMeter } from '../../src/ws/metrics.js';
import { SocketOutlet, type BufferBounds, type SocketOutletOptions } from '../../src/ws/outlet.js';
import { createSendBatch } from '../../src/ws/sendBatch.js';

export class FakeSocket {
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

export function fakeOutlet(bounds: BufferBounds, loop: SocketOutletOptions['loop'] = { heldMs: () => 0 }) {
  const ws = new FakeSocket();
  const slow: string[] = [];
  const o = new SocketOutlet({
    ws: ws as unknown as uWS.WebSocket<unknown>,
    key: 1,
    user: { id: 1, username: 'dash', role: 'MEMBER' },
    bounds,
    events: { slow: () => slow.push('slow'), close: () => undefined },
    batch: createSendBatch(),
    resuming: false,
    authenticatedAt: 0,
    meter,
    loop,
  });
  /** Answers the ping in flight, as a client's WebSocket stack does once it has read up to it. */
  const pong = () => o.ponged(new TextEncoder().encode(ws.pings.at(-1)!).buffer as ArrayBuffer);
  return { o, ws, slow, pong };
}

/** A 1 KB frame. */
export const FRAME = 'x'.repeat(1024);

/** Sends `n` copies of `frame`; returns how many were written (the rest wait for a pong). */
export function burst(o: SocketOutlet, ws: FakeSocket, n: number, frame = FRAME): number {
  const before = ws.written.length;
  for (let i = 0; i < n; i++) o.deliver(frame);
  return ws.written.length - before;
}
