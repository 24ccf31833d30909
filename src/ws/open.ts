// A socket opens: its outlet (the outbound side, with its buffer bounds) is made and handed to the
// connection actor, which binds it in the router.
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import { CloseCode } from '../protocol/errors.js';
import type { ClosePacer, PacedClose } from './closePacer.js';
import type { LoopWatch } from './loopWatch.js';
import type { WsMeter } from './metrics.js';
import { SocketOutlet, type OutletEvents } from './outlet.js';
import type { SendBatch } from './sendBatch.js';
import type { SocketData, WsLimits } from './socketData.js';

/** A socket above half of WS_MAX_BUFFERED_BYTES for this long is cut off as a slow consumer. */
const SLOW_CONSUMER_GRACE_MS = 3000;
/** A client that leaves WS_MAX_BUFFERED_BYTES unread and a ping unanswered this long has stopped reading. */
export const STALL_MS = 1500;

export interface OpenDeps {
  limits: WsLimits;
  logger: Logger;
  /** The send rounds the pipeline delivers in (sockets cork once per round). */
  sendBatch: SendBatch;
  meter: WsMeter;
  /** Slow consumers' closes wait their turn here (a fan-out finds many at once). */
  closePacer: ClosePacer;
  /** The hub's own loop holds, not counted against a reader's ping. */
  loop: LoopWatch;
}

/**
 * What the outlet asks of its connection. A class, not an object of arrow functions: each socket
 * keeps it for its whole life, and under tsx (esbuild's keepNames) every named closure gets its own
 * property dictionary (about 0.25 KB each), where methods are shared.
 */
class SocketEvents implements OutletEvents, PacedClose {
  constructor(
    private readonly data: SocketData,
    private readonly meter: WsMeter,
    private readonly pacer: ClosePacer,
  ) {}

  slow(): void {
    this.meter.slowConsumer();
    this.pacer.add(this);
  }

  closeNow(): void {
    // The client may have gone meanwhile (its actor is then done).
    if (this.data.outlet?.closed) return;
    this.data.actor.send({ type: 'CLOSE', code: CloseCode.slowConsumer, reason: 'slow consumer: resume with since' });
  }

  close(code: number, reason: string): void {
    this.data.actor.send({ type: 'CLOSE', code, reason });
  }
}

export function createOpenHandler(deps: OpenDeps) {
  const { limits, logger, meter } = deps;
  return function open(ws: uWS.WebSocket<SocketData>): void {
    const data = ws.getUserData();
    const user = data.session!.user;
    data.outlet = new SocketOutlet({
      ws,
      key: data.key,
      user,
      bounds: { softBytes: limits.maxBufferedBytes / 2, hardBytes: limits.maxBufferedBytes, graceMs: SLOW_CONSUMER_GRACE_MS, stallMs: STALL_MS },
      events: new SocketEvents(data, meter, deps.closePacer),
      batch: deps.sendBatch,
      resuming: data.since !== undefined,
      presenceBatched: data.presenceBatched,
      authenticatedAt: data.authStartedAt,
      meter,
      loop: deps.loop,
    });
    meter.opened(user.role);
    data.actor.send({ type: 'OPENED', outlet: data.outlet });
    logger.info({ conn: data.key, user: user.username, role: user.role, since: data.since }, 'websocket connected');
  };
}
