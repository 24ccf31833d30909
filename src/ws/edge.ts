// The WebSocket edge: `GET /api/ws?token=` on the uWS app. The upgrade is authenticated before it
// is accepted (401 JSON otherwise); each socket gets a connection actor and typed user data; each
// frame is rate-limited, decoded and validated here, then handed to the pipeline as a typed value.
import { STATUS_CODES } from 'node:http';
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import { createActor, fromPromise, type AnyActorRef } from 'xstate';
import { connectionMachine, type ConnectionActor, type ConnectionOutlet, type RouterRef, type Session } from '../actors/connection.js';
import { Errors, HubError } from '../errors.js';
import type { WsMeter } from './metrics.js';
import { wsUpgradeQuery, type AuthResponseFrame, type ClientFrame } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { CorkAnchor } from './corkAnchor.js';
import { decodeFrame, localIdHint } from './inbox.js';
import { SocketOutlet } from './outlet.js';
import type { SendBatch } from './sendBatch.js';
import { TokenBucket } from './tokenBucket.js';
import type { Principal } from '../delivery/types.js';
import { CloseCode } from '../protocol/errors.js';

export interface WsLimits {
  maxFrameBytes: number;
  hardFrameBytes: number;
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
  /** Holds the loop's cork while an upgrade is answered after the credential check (see corkAnchor.ts). */
  anchor: CorkAnchor;
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
/**
 * Frames up to this many times WS_MAX_FRAME_BYTES get an ERROR and the socket stays; larger ones
 * close it with 1009. Above WS_HARD_FRAME_BYTES uWS itself drops the connection (it cannot read it).
 */
const ERROR_FACTOR = 2;
/** A socket above half of WS_MAX_BUFFERED_BYTES for this long is cut off as a slow consumer. */
const SLOW_CONSUMER_GRACE_MS = 3000;
/** A client that leaves WS_MAX_BUFFERED_BYTES unread and a ping unanswered this long has stopped reading. */
const STALL_MS = 1500;
/** How long an abuse close waits for the answers of frames already handed to the pipeline. */
const ANSWER_WAIT_MS = 5000;

/** Why uWS dropped a connection itself (the reason it gives the close handler with code 1006). */
function transportDropReason(message: ArrayBuffer): TransportDrop | undefined {
  if (message.byteLength === 0) return undefined;
  const text = Buffer.from(message).toString('latin1');
  if (/utf-?8/i.test(text)) return { kind: 'invalid_utf8', text };
  if (/too big/i.test(text)) return { kind: 'too_large', text };
  return { kind: 'protocol', text };
}
interface TransportDrop {
  kind: 'invalid_utf8' | 'too_large' | 'protocol';
  text: string;
}

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
    outlet.handedOver();
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

  const closeAbove = limits.maxFrameBytes * ERROR_FACTOR;

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

    upgrade(res, req, context) {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.getHeader('authorization'))?.[1];
      const credential = req.getQuery('token') || bearer || '';
      const sinceText = req.getQuery('since') ?? '';
      if (!accepting) return refuseNow(res, Errors.unavailable('the hub is shutting down'));
      // RFC 6455 §4.1: the handshake says `Connection: Upgrade` and carries a key. uWS upgrades
      // without either, and a `Connection: close` upgrade is closed again by uWS right after the 101.
      if (!/(^|,)\s*upgrade\s*(,|$)/i.test(req.getHeader('connection'))) return refuseNow(res, Errors.badRequest('a WebSocket handshake says "Connection: Upgrade"'));
      if (key === '') return refuseNow(res, Errors.badRequest('a WebSocket handshake carries a Sec-WebSocket-Key header'));
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
              deps.anchor.run(() => res.cork(() => res.upgrade(data, key, protocol, extensions, context)));
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
        { softBytes: limits.maxBufferedBytes / 2, hardBytes: limits.maxBufferedBytes, graceMs: SLOW_CONSUMER_GRACE_MS, stallMs: STALL_MS },
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
      if (outlet.closing) {
        // Closing for abuse: earlier frames are still answered; this one is refused, so the client
        // knows it was not stored.
        meter.refused(message.byteLength);
        outlet.sendError(outlet.closingError.code, outlet.closingError.message, localIdHint(message, isBinary));
        return;
      }
      const bytes = message.byteLength;
      if (bytes > closeAbove) {
        meter.refused(bytes);
        logger.warn({ conn: data.key, user: data.session!.user.username, bytes, limit: limits.maxFrameBytes }, 'frame far over the size limit: closing the socket with 1009');
        const reason = `frame of ${bytes} bytes; the limit is ${limits.maxFrameBytes}`;
        // Frames already handed to the pipeline are answered first, as before an abuse close.
        outlet.closeWhenAnswered(CloseCode.tooLarge, reason, ANSWER_WAIT_MS, 'frame_too_large');
        return;
      }
      if (!data.meters.rate.take()) {
        meter.refused(bytes);
        outlet.sendError('rate_limited', `more than ${limits.rateLimit} frames per second; slow down`, localIdHint(message, isBinary));
        if (!data.meters.rateStrikes.take()) {
          meter.rateLimitClose();
          outlet.closeWhenAnswered(CloseCode.rateLimited, 'rate limit exceeded', ANSWER_WAIT_MS, 'rate_limited');
        }
        return;
      }
      const decoded = decodeFrame(message, isBinary, limits.maxFrameBytes);
      if (!decoded.ok) {
        meter.refused(bytes);
        if (decoded.code === 'frame_too_large') {
          logger.warn({ conn: data.key, user: data.session!.user.username, bytes, limit: limits.maxFrameBytes }, 'frame over the size limit: answered with ERROR');
        }
        outlet.sendError(decoded.code, decoded.message, decoded.localId);
        if (!data.meters.badFrames.take()) outlet.closeWhenAnswered(CloseCode.invalidFrames, 'too many invalid frames', ANSWER_WAIT_MS, 'invalid_frame');
        return;
      }
      meter.received(decoded.frame.type, bytes);
      dispatch(data, outlet, decoded.frame);
    },

    pong(ws, message) {
      ws.getUserData().outlet?.ponged(message);
    },

    drain(ws) {
      ws.getUserData().outlet?.drained();
    },

    close(ws, code, message) {
      const data = ws.getUserData();
      // The code the hub closed with, if it did: the outlet knows even when the close happens inside
      // the actor's own transition (a cut-off), before the actor's snapshot shows it.
      const chosen = data.outlet?.endCode ?? data.actor.getSnapshot().context.closeCode;
      const dropped = code === 1006 && chosen === undefined ? transportDropReason(message) : undefined;
      data.outlet?.markClosed();
      data.actor.send({ type: 'SOCKET_CLOSED', code });
      const finalCode = chosen ?? code;
      meter.closed(data.session!.user.role, finalCode);
      const user = data.session?.user.username;
      if (dropped) {
        // uWS fails the connection itself, before the hub sees the frame, and sends no close frame.
        meter.transportDrop(dropped.kind);
        logger.warn({ conn: data.key, user, code, reason: dropped.text }, `the transport dropped the connection: ${dropped.text}`);
        return;
      }
      logger.info({ conn: data.key, user, code: finalCode, reason: data.actor.getSnapshot().context.closeReason }, 'websocket closed');
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
