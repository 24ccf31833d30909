// The upgrade: `GET /api/ws?token=` is authenticated before it is accepted (401 JSON otherwise).
// Each upgrade gets a connection actor; the credential is checked here and the outcome sent to it,
// and it accepts or refuses. The actors join the router's actor system.
import { STATUS_CODES } from 'node:http';
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import { createActor, fromPromise, type AnyActorRef } from 'xstate';
import { ANSWERED, connectionMachine, type ConnectionInput, type ConnectionOutlet, type RouterRef, type Session } from '../actors/connection.js';
import { SessionTimers } from '../actors/sessionExpiry.js';
import type { Principal } from '../delivery/types.js';
import { Errors, HubError } from '../errors.js';
import { CloseCode } from '../protocol/errors.js';
import type { ConnectionTable } from './connections.js';
import type { CorkAnchor } from './corkAnchor.js';
import { readHandshake } from './handshake.js';
import type { SocketData, WsLimits } from './socketData.js';
import { TokenBucket } from './tokenBucket.js';
import type { Timers } from '../clock.js';

/** Rejected frames a client may send in a burst, and how many per second are forgiven. */
const STRIKES_BURST = 20;
const STRIKES_PER_SECOND = 1;

export interface Admission {
  /** Resolves once the socket is counted (or could not be: it never rejects). */
  admit(key: number, user: Principal): Promise<void>;
  /** Called for every connection that ends: gives back an admission its socket did not use. */
  release(key: number): void;
}

export interface UpgradeDeps {
  limits: WsLimits;
  logger: Logger;
  /**
   * The router: connection actors bind their endpoints in it, and they join its actor system. One
   * system for all sockets instead of one each saved 1.8 KB of heap per socket; they are not
   * spawned into its snapshot, which would copy its children on every connect.
   */
  router: RouterRef & AnyActorRef;
  /** Holds the loop's cork while an upgrade is answered after the credential check (see corkAnchor.ts). */
  anchor: CorkAnchor;
  authenticate(credential: string): Promise<Session | undefined>;
  /**
   * Cluster mode: the socket is counted where every node sees it before the 101 goes out, so that
   * once a client has seen its socket open no node decides its agent gone; given back if it ends
   * without opening. Absent on a single node, where binding decides in the same turn as the 101.
   */
  admission?: Admission;
  replay(user: Principal, since: number, outlet: ConnectionOutlet): Promise<number>;
  connections: ConnectionTable;
  now: () => number;
  /** Runs session expiry (the hub's timers). */
  timers?: Timers;
}

/** Answers an upgrade with an error status and a JSON body instead of a 101. */
export function refuseUpgrade(res: uWS.HttpResponse, error: HubError): void {
  res.cork(() => {
    res
      .writeStatus(`${error.status} ${STATUS_CODES[error.status] ?? ''}`)
      .writeHeader('Content-Type', 'application/json')
      .end(JSON.stringify({ error: error.message }));
  });
}

/**
 * Ends a connection's accounting when its actor finishes. A class, not an object of arrow
 * functions: an idle socket keeps its observer for its whole life, and under tsx (esbuild's
 * keepNames) every named closure gets its own property dictionary (about 0.25 KB each, and as
 * much again for the bound copy the actor keeps), where methods are shared.
 */
class ConnectionWatch {
  constructor(
    private readonly data: SocketData,
    private readonly connections: ConnectionTable,
    private readonly logger: Logger,
    private readonly admission: Admission | undefined,
  ) {}

  complete(): void {
    this.connections.forget(this.data.key);
    this.admission?.release(this.data.key);
  }

  error(err: unknown): void {
    this.connections.forget(this.data.key);
    this.admission?.release(this.data.key);
    this.logger.error({ err, conn: this.data.key }, 'connection actor failed');
    this.data.outlet?.end(CloseCode.internal, 'internal error');
  }
}

export function createUpgradeHandler(deps: UpgradeDeps) {
  const { limits, logger, connections, now } = deps;
  let accepting = true;
  const expiry = new SessionTimers(deps.timers);
  const machine = connectionMachine.provide({
    actors: {
      replay: fromPromise(({ input }: { input: { user: Principal; since: number; outlet: ConnectionOutlet } }) =>
        deps.replay(input.user, input.since, input.outlet),
      ),
    },
  });

  function upgrade(res: uWS.HttpResponse, req: uWS.HttpRequest, context: uWS.us_socket_context_t): void {
    const handshake = readHandshake(req);
    if (!accepting) return refuseUpgrade(res, Errors.unavailable('the hub is shutting down'));
    if (handshake instanceof HubError) return refuseUpgrade(res, handshake);
    const { key, protocol, extensions, credential, since } = handshake;

    let aborted = false;
    const connKey = connections.nextKey();
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
    const input: ConnectionInput = {
      key: connKey,
      meters: data.meters,
      since,
      router: deps.router,
      expiry,
      now,
      upgrade: {
        accept(session) {
          if (aborted) return;
          data.session = session;
          deps.anchor.run(() => res.cork(() => res.upgrade(data, key, protocol, extensions, context)));
        },
        refuse(error) {
          if (!aborted) refuseUpgrade(res, error);
        },
      },
    };
    data.actor = createActor(machine, { parent: deps.router, input });
    // The actor keeps its options (input included) for its whole life, and its context has copied
    // the input by now: without this the request's closures would live as long as the socket
    // (about 0.5 KB of heap per idle socket).
    input.upgrade = ANSWERED;
    connections.add(connKey, data.actor);
    data.actor.subscribe(new ConnectionWatch(data, connections, logger, deps.admission));
    data.actor.start();
    // An aborted request's actor is already done: the outcome has no one to go to.
    const { admission } = deps;
    deps.authenticate(credential).then(
      async (session) => {
        if (session && admission && !aborted) await admission.admit(connKey, session.user);
        if (!aborted) data.actor.send(session ? { type: 'AUTHENTICATED', session } : { type: 'UNAUTHENTICATED' });
      },
      (err: unknown) => {
        logger.warn({ err, conn: connKey }, 'could not check a WebSocket credential; refused with 503');
        if (!aborted) data.actor.send({ type: 'AUTH_FAILED' });
      },
    );
  }

  return {
    upgrade,
    /** Refuses new upgrades from now on (shutdown). */
    stopAccepting(): void {
      accepting = false;
    },
  };
}
