// The WebSocket edge: `GET /api/ws?token=` on the uWS app. Its jobs live beside it: the upgrade and
// its authentication (upgrade.ts, handshake.ts), the opening of a socket (open.ts), each frame
// (dispatch.ts), the close (close.ts) and the accounting of connections (connections.ts).
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import type { AnyActorRef } from 'xstate';
import type { ConnectionOutlet, RouterRef, Session } from '../actors/connection.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { Principal } from '../delivery/types.js';
import type { AuthResponseFrame } from '../protocol/frames.js';
import { createCloseHandler } from './close.js';
import { ClosePacer } from './closePacer.js';
import { createConnectionTable } from './connections.js';
import type { CorkAnchor } from './corkAnchor.js';
import type { LoopWatch } from './loopWatch.js';
import { createFrameHandler } from './dispatch.js';
import type { WsMeter } from './metrics.js';
import { createOpenHandler } from './open.js';
import type { SendBatch } from './sendBatch.js';
import type { SocketData, WsLimits } from './socketData.js';
import { createUpgradeHandler, type Admission } from './upgrade.js';
import type { Timers } from '../clock.js';

export interface WsEdgeDeps {
  uwsApp: uWS.TemplatedApp;
  limits: WsLimits;
  logger: Logger;
  /** The router: connection actors bind their sockets in it and join its actor system. */
  router: RouterRef & AnyActorRef;
  pipeline: Pipeline;
  /** The send rounds the pipeline delivers in (sockets cork once per round). */
  sendBatch: SendBatch;
  /** Holds the loop's cork while an upgrade is answered after the credential check (see corkAnchor.ts). */
  anchor: CorkAnchor;
  authenticate(credential: string): Promise<Session | undefined>;
  /** Cluster mode: counts a socket on every node before it is accepted (see upgrade.ts). */
  admission?: Admission;
  replay(user: Principal, since: number, outlet: ConnectionOutlet): Promise<number>;
  /** An AUTH_RESPONSE frame from a human; rejects with a HubError to answer with ERROR. */
  authResponse(user: Principal, payload: AuthResponseFrame['payload']): Promise<void>;
  /** Counts sockets, frames, bytes and cut-offs (per frame, with pre-bound counters). */
  meter: WsMeter;
  /** The hub's own loop holds, not counted against a reader's ping (see outlet.ts). */
  loop: LoopWatch;
  /** Rate limits' time: the process clock (simulated time would stop their refill). */
  now?: () => number;
  /** Runs session expiry (the hub's timers: a test moves them past a JWT's end). */
  timers?: Timers;
}

export function attachWebSocket(deps: WsEdgeDeps) {
  const { limits, logger, meter } = deps;
  const connections = createConnectionTable();
  const closePacer = new ClosePacer();
  const upgrade = createUpgradeHandler({
    limits,
    logger,
    router: deps.router,
    anchor: deps.anchor,
    authenticate: deps.authenticate,
    admission: deps.admission,
    replay: deps.replay,
    connections,
    now: deps.now ?? Date.now,
    timers: deps.timers,
  });

  deps.uwsApp.ws<SocketData>('/api/ws', {
    compression: uWS.DISABLED,
    // Frames up to the hard cap reach the hub, which answers them (ERROR or 1009); uWS would drop
    // a larger one without a close frame, so the cap sits well above the point where the hub closes.
    maxPayloadLength: limits.hardFrameBytes,
    // Our own bound (checked after every send) comes first; uWS's is a backstop.
    maxBackpressure: limits.maxBufferedBytes + limits.maxFrameBytes,
    closeOnBackpressureLimit: false,
    idleTimeout: limits.idleTimeoutSeconds,
    sendPingsAutomatically: true,
    upgrade: upgrade.upgrade,
    open: createOpenHandler({ limits, logger, sendBatch: deps.sendBatch, meter, closePacer, loop: deps.loop }),
    message: createFrameHandler({ limits, logger, pipeline: deps.pipeline, authResponse: deps.authResponse, meter }),
    pong: (ws, message) => ws.getUserData().outlet?.ponged(message),
    drain: (ws) => ws.getUserData().outlet?.drained(),
    close: createCloseHandler({ logger, meter }),
  });

  return {
    /** Live connection actors by key (for inspection and tests). */
    connections: connections.live,
    /** Refuses new upgrades from now on (shutdown). */
    stopAccepting: upgrade.stopAccepting,
    /** Resolves true once every connection has closed, false after `timeoutMs` (see connections.ts). */
    closed: connections.closed,
  };
}
export type WsEdge = ReturnType<typeof attachWebSocket>;
