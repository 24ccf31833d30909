// The WebSocket edge: `GET /api/ws?token=` on the uWS app. The upgrade is authenticated before it
// is accepted (401 JSON otherwise); each socket gets a connection actor and typed user data; each
// frame is rate-limited, decoded and validated here, then handed to the pipeline as a typed value.
import { STATUS_CODES } from 'node:http';
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import { createActor, fromPromise, type AnyActorRef } from 'xstate';
import { connectionMachine, type ConnectionActor, type ConnectionOutlet, type RouterRef, type Session } from '../actors/connection.js';
import { CloseCode, Errors, HubError } from '../errors.js';
import type { WsMeter } from '../metrics/ws.js';
import { wsUpgradeQuery, type AuthResponseFrame, type ClientFrame } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import type { Principal } from '../services/directory.js';
import type { Pipeline } from '../services/pipeline.js';
import { decodeFrame } from './inbox.js';
import { SocketOutlet } from './outlet.js';
import type { SendBatch } from './sendBatch.js';
import { TokenBucket } from './tokenBucket.js';

export interface WsLimits {
  maxFrameBytes: number;
  rateLimit: number;
  rateBurst: number;
  maxBufferedBytes: number;
  idleTimeoutSeconds: number;
}

export interface WsEdgeDeps {
  uwsApp: uWS.TemplatedApp;
  limits: WsLimits;
  logger: Logger;
  router: RouterRef;
  /**
   * The actor whose system connection actors join (the router's). One system for all sockets
   * instead of one each saved 1.8 KB of heap per socket; they are not spawned into its snapshot,
   * which would copy its children on every connect.
   */
  supervisor?: AnyActorRef;
  pipeline: Pipeline;
  /** The send rounds the pipeline delivers in (sockets cork once per round). */
  sendBatch: SendBatch;
  authenticate(credential: string): Promise<Session | undefined>;
  replay(user: Principal, since: number, outlet: ConnectionOutlet): Promise<number>;
  /** An AUTH_RESPONSE frame from a human; rejects with a HubError to answer with ERROR. */
  authResponse(user: Principal, payload: AuthResponseFrame['payload']): Promise<void>;
  /** Counts sockets, frames, bytes and cut-offs (per frame, with pre-bound counters). */
  meter: WsMeter;
  now?: () => number;
}

/** Per-socket state, typed: nothing is hung on the uWS socket object itself. */
interface SocketData {
  actor: ConnectionActor;
  key: number;
  since: number | undefined;
  /** When the credential check began (revocations after it still apply). */
  authStartedAt: number;
  session?: Session;
  outlet?: SocketOutlet;
  /** Frames per second allowed, and warnings left before an abusive client is closed (also in the actor's context). */
  meters: { rate: TokenBucket; badFrames: TokenBucket; rateStrikes: TokenBucket };
}

/** Rejected frames a client may send in a burst, and how many per second are forgiven. */
const STRIKES_BURST = 20;
const STRIKES_PER_SECOND = 1;
/** uWS itself refuses frames above this many times WS_MAX_FRAME_BYTES (close 1009), so it never buffers more. */
const HARD_LIMIT_FACTOR = 2;
/** A socket may hold up to this many times WS_MAX_BUFFERED_BYTES briefly, and the bound itself for the grace period. */
const BURST_FACTOR = 4;
const SLOW_CONSUMER_GRACE_MS = 3000;

export function attachWebSocket(deps: WsEdgeDeps) {
  const { limits, logger, pipeline, meter } = deps;
  const now = deps.now ?? Date.now;
  const connections = new Map<number, ConnectionActor>();
  let closedWaiters: Array<() => void> = [];
  const forget = (key: number) => {
    connections.delete(key);
    if (connections.size > 0 || closedWaiters.length === 0) return;
    const waiters = closedWaiters;
    closedWaiters = [];
    for (const w of waiters) w();
  };
  let nextKey = 1;
  let accepting = true;

  const machine = connectionMachine.provide({
    actors: {
      authenticate: fromPromise(({ input }: { input: { credential: string } }) => deps.authenticate(input.credential)),
      replay: fromPromise(({ input }: { input: { user: Principal; since: number; outlet: ConnectionOutlet } }) =>
        deps.replay(input.user, input.since, input.outlet),
      ),
    },
  });

  function refuseNow(res: uWS.HttpResponse, error: HubError): void {
    res.cork(() => {
      res
        .writeStatus(`${error.status} ${STATUS_CODES[error.status] ?? ''}`)
        .writeHeader('Content-Type', 'application/json')
        .end(JSON.stringify({ error: error.message }));
    });
  }

  function dispatch(data: SocketData, outlet: SocketOutlet, frame: ClientFrame): void {
    const user = data.session!.user;
    if (frame.type === 'AUTH_RESPONSE') {
      if (isMachineRole(user.role)) {
        outlet.sendError('forbidden', 'only human users answer authorization requests', frame.local_id);
        return;
      }
      deps.authResponse(user, frame.payload).catch((err: unknown) => {
        const error = err instanceof HubError ? err : Errors.unavailable('the answer could not be recorded; send it again');
        if (!(err instanceof HubError)) logger.error({ err }, 'recording an authorization answer failed');
        outlet.sendError(error.kind, error.message, frame.local_id);
      });
      return;
    }
    pipeline.submit(
      user,
      {
        type: frame.type,
        payload: frame.payload,
        target_id: frame.target_id,
        conversation_id: frame.conversation_id,
        local_id: frame.local_id,
        stream_id: 'stream_id' in frame ? frame.stream_id : undefined,
      },
      outlet,
    );
  }

  deps.uwsApp.ws<SocketData>('/api/ws', {
    compression: uWS.DISABLED,
    maxPayloadLength: limits.maxFrameBytes * HARD_LIMIT_FACTOR,
    // Our own bounds (checked after every send) come first; uWS's is a backstop.
    maxBackpressure: limits.maxBufferedBytes * BURST_FACTOR + limits.maxFrameBytes * HARD_LIMIT_FACTOR,
    closeOnBackpressureLimit: false,
    idleTimeout: limits.idleTimeoutSeconds,
    sendPingsAutomatically: true,

    upgrade(res, req, context) {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.getHeader('authorization'))?.[1];
      const credential = req.getQuery('token') || bearer || '';
      const sinceText = req.getQuery('since') ?? '';
      if (!accepting) return refuseNow(res, Errors.unavailable('the hub is shutting down'));
      if (credential === '') return refuseNow(res, Errors.tokenRequired());
      if (sinceText !== '' && !wsUpgradeQuery.shape.since.safeParse(sinceText).success) return refuseNow(res, Errors.badRequest('since must be a message id (a whole number)'));
      const since = sinceText === '' ? undefined : Number(sinceText);

      let aborted = false;
      const connKey = nextKey++;
      const data = {
        key: connKey,
        since,
        authStartedAt: now(),
        meters: {
          rate: new TokenBucket(limits.rateLimit, limits.rateBurst, now),
          // One warning per rejected frame, refilling slowly: a burst of mistakes is forgiven, a stream is not.
          badFrames: new TokenBucket(STRIKES_PER_SECOND, STRIKES_BURST, now),
          rateStrikes: new TokenBucket(STRIKES_PER_SECOND, STRIKES_BURST, now),
        },
      } as SocketData;
      res.onAborted(() => {
        aborted = true;
        data.actor.send({ type: 'ABORTED' });
      });
      data.actor = createActor(machine, {
        parent: deps.supervisor,
        input: {
          key: connKey,
          meters: data.meters,
          credential,
          since,
          router: deps.router,
          now,
          upgrade: {
            accept(session) {
              if (aborted) return;
              data.session = session;
              res.cork(() => res.upgrade(data, key, protocol, extensions, context));
            },
            refuse(error) {
              if (!aborted) refuseNow(res, error);
            },
          },
        },
      });
      connections.set(connKey, data.actor);
      data.actor.subscribe({
        complete: () => forget(connKey),
        error: (err) => {
          forget(connKey);
          logger.error({ err, conn: connKey }, 'connection actor failed');
          data.outlet?.end(CloseCode.internal, 'internal error');
        },
      });
      data.actor.start();
    },

    open(ws) {
      const data = ws.getUserData();
      const user = data.session!.user;
      data.outlet = new SocketOutlet(
        ws,
        data.key,
        user,
        { softBytes: limits.maxBufferedBytes, hardBytes: limits.maxBufferedBytes * BURST_FACTOR, graceMs: SLOW_CONSUMER_GRACE_MS },
        {
          slow: () => {
            meter.slowConsumer();
            data.actor.send({ type: 'CLOSE', code: CloseCode.slowConsumer, reason: 'slow consumer: resume with since' });
          },
          close: (code, reason) => data.actor.send({ type: 'CLOSE', code, reason }),
        },
        deps.sendBatch,
        data.since !== undefined,
        data.authStartedAt,
        meter,
      );
      meter.opened(user.role);
      data.actor.send({ type: 'OPENED', outlet: data.outlet });
      logger.info({ conn: data.key, user: user.username, role: user.role, since: data.since }, 'websocket connected');
    },

    message(ws, message, isBinary) {
      const data = ws.getUserData();
      const outlet = data.outlet;
      if (!outlet || outlet.closed) return;
      if (!data.meters.rate.take()) {
        meter.refused(message.byteLength);
        outlet.sendError('rate_limited', `more than ${limits.rateLimit} frames per second; slow down`);
        if (!data.meters.rateStrikes.take()) {
          meter.rateLimitClose();
          data.actor.send({ type: 'CLOSE', code: CloseCode.rateLimited, reason: 'rate limit exceeded' });
        }
        return;
      }
      const decoded = decodeFrame(message, isBinary, limits.maxFrameBytes);
      if (!decoded.ok) {
        meter.refused(message.byteLength);
        outlet.sendError(decoded.code, decoded.message, decoded.localId);
        if (!data.meters.badFrames.take()) data.actor.send({ type: 'CLOSE', code: CloseCode.invalidFrames, reason: 'too many invalid frames' });
        return;
      }
      meter.received(decoded.frame.type, message.byteLength);
      dispatch(data, outlet, decoded.frame);
    },

    drain(ws) {
      ws.getUserData().outlet?.drained();
    },

    close(ws, code) {
      const data = ws.getUserData();
      data.outlet?.markClosed();
      data.actor.send({ type: 'SOCKET_CLOSED', code });
      const snapshot = data.actor.getSnapshot();
      meter.closed(data.session!.user.role, snapshot.context.closeCode ?? code);
      logger.info(
        { conn: data.key, user: data.session?.user.username, code: snapshot.context.closeCode ?? code, reason: snapshot.context.closeReason },
        'websocket closed',
      );
    },
  });

  return {
    /** Live connection actors by key (for inspection and tests). */
    connections: connections as ReadonlyMap<number, ConnectionActor>,
    /** Refuses new upgrades from now on (shutdown). */
    stopAccepting(): void {
      accepting = false;
    },
    /**
     * Resolves true once every connection has closed (its close handshake done), false after
     * `timeoutMs`. Shutdown waits for it: a socket force-closed by closing the app mid-handshake
     * was seen to take a connection of the next server in the same process down with it (1006).
     */
    closed(timeoutMs: number): Promise<boolean> {
      if (connections.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          closedWaiters = closedWaiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        closedWaiters.push(done);
      });
    },
  };
}
export type WsEdge = ReturnType<typeof attachWebSocket>;
