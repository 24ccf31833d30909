// A tap on the dashboard's WebSocket (Playwright's WebSocket routing, set before the page connects):
// frames the test picks are held back, either way, until it releases them or answers them itself,
// so a test can see the page's in-between states (a send still pending, a stream before its final
// text) without racing the hub. Everything else passes through untouched.
import type { Page, WebSocketRoute } from 'playwright-core';

export interface TappedFrame {
  type: string;
  local_id?: string;
  sender_id?: number;
  stream_id?: string;
  [key: string]: unknown;
}

type Pick = (frame: TappedFrame) => boolean;

export interface SocketTap {
  /** Every frame the hub sent the page, in order (held ones included). */
  received: TappedFrame[];
  /** From now on, frames from the page that match wait here. */
  holdOutgoing(pick: Pick): void;
  /** From now on, frames from the hub that match wait here. */
  holdIncoming(pick: Pick): void;
  /** The next held frame from the page (already held, or when it comes). */
  nextHeldOutgoing(): Promise<TappedFrame>;
  /** Sends the held frames on and stops holding. */
  releaseOutgoing(): void;
  releaseIncoming(): void;
  /** Drops the held frames from the page and stops holding: the test answers them itself. */
  dropOutgoing(): TappedFrame[];
  /** A frame to the page as if the hub sent it. */
  toPage(frame: TappedFrame): void;
}

const parse = (message: string | Buffer): TappedFrame | undefined => {
  try {
    return JSON.parse(message.toString()) as TappedFrame;
  } catch {
    return undefined;
  }
};

export async function tapSocket(page: Page): Promise<SocketTap> {
  let pageSide: WebSocketRoute | undefined;
  let hubSide: WebSocketRoute | undefined;
  let outPick: Pick | undefined;
  let inPick: Pick | undefined;
  let heldOut: string[] = [];
  let heldIn: string[] = [];
  let waiters: Array<(frame: TappedFrame) => void> = [];
  const received: TappedFrame[] = [];

  await page.routeWebSocket(/\/api\/ws/, (ws) => {
    const server = ws.connectToServer();
    pageSide = ws;
    hubSide = server;
    ws.onMessage((message) => {
      const frame = parse(message);
      if (frame && outPick?.(frame)) {
        heldOut.push(message.toString());
        const wake = waiters;
        waiters = [];
        for (const w of wake) w(frame);
        return;
      }
      server.send(message);
    });
    server.onMessage((message) => {
      const frame = parse(message);
      if (frame) received.push(frame);
      if (frame && inPick?.(frame)) return void heldIn.push(message.toString());
      ws.send(message);
    });
  });

  return {
    received,
    holdOutgoing: (pick) => void (outPick = pick),
    holdIncoming: (pick) => void (inPick = pick),
    nextHeldOutgoing() {
      const first = heldOut[0];
      if (first !== undefined) return Promise.resolve(parse(first)!);
      return new Promise((resolve) => waiters.push(resolve));
    },
    releaseOutgoing() {
      outPick = undefined;
      for (const message of heldOut) hubSide?.send(message);
      heldOut = [];
    },
    releaseIncoming() {
      inPick = undefined;
      for (const message of heldIn) pageSide?.send(message);
      heldIn = [];
    },
    dropOutgoing() {
      outPick = undefined;
      const dropped = heldOut.map((m) => parse(m)!);
      heldOut = [];
      return dropped;
    },
    toPage: (frame) => pageSide?.send(JSON.stringify(frame)),
  };
}
