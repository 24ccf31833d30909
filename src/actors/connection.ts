// The connection actor: one per WebSocket, from the upgrade request to the close.
//   authenticating → upgrading → open (replaying → live) → closing → closed
// The upgrade handler checks the credential and sends the outcome as an event, so the credential
// never enters the actor (nor its snapshots) and a connect costs no child actor for the check.
// It holds the session (who, until when), binds the socket's endpoint in the router while open,
// runs the resume replay, closes on JWT expiry, revocation, abuse, slow reading or shutdown, and
// records why. Frames themselves never pass through it: the edge validates and hands them to the
// pipeline directly, so the hot path pays no event here.
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import { Errors, type HubError } from '../errors.js';
import type { RouterEvent } from './router.js';
import type { Endpoint, Principal, ReplayOutlet } from '../delivery/types.js';
import { CloseCode } from '../protocol/errors.js';
import type { ExpiryPort, SESSION_EXPIRED } from './sessionExpiry.js';

export interface Session {
  user: Principal;
  /** Epoch milliseconds when the credential stops being valid (JWTs); absent for agent tokens. */
  expiresAt?: number;
}

/** The pending HTTP upgrade: accept it, or answer it with an error status. */
export interface UpgradePort {
  accept(session: Session): void;
  refuse(error: HubError): void;
}

/** The socket side of an open connection, as the actor and the replay need it. */
export interface ConnectionOutlet extends Endpoint, ReplayOutlet {
  /**
   * Ends resume: frames held back during the replay go out, and from now on frames with an id up to
   * `lastReadId` (the last row the replay read; 0 for none) are dropped as already sent.
   */
  endReplay(lastReadId: number): void;
  /** Closes the socket with this code (the close event follows). */
  end(code: number, reason: string): void;
}

export interface RouterRef {
  send(event: RouterEvent): void;
}

export type ConnectionEvent =
  /** The credential is valid: this is who, and until when. */
  | { type: 'AUTHENTICATED'; session: Session }
  /** The credential is not valid (unknown, expired, revoked or malformed). */
  | { type: 'UNAUTHENTICATED' }
  /** The credential could not be checked (the store failed). */
  | { type: 'AUTH_FAILED' }
  | { type: 'ABORTED' }
  | { type: 'OPENED'; outlet: ConnectionOutlet }
  | { type: 'CLOSE'; code: number; reason: string }
  | { type: 'SOCKET_CLOSED'; code: number }
  | typeof SESSION_EXPIRED;

/** Inbound limits of one socket: frames per second, and warnings left before an abuse close. */
export interface ConnectionMeters {
  rate: { readonly available: number; take(): boolean };
  badFrames: { readonly available: number; take(): boolean };
  rateStrikes: { readonly available: number; take(): boolean };
}

export interface ConnectionInput {
  key: number;
  /** Checked by the edge on every frame; held here so a snapshot shows them. */
  meters: ConnectionMeters;
  /** Resume from this id (exclusive); absent: live only. */
  since?: number;
  upgrade: UpgradePort;
  router: RouterRef;
  /** Sends SESSION_EXPIRED when a JWT's lifetime is over (timers outside XState's scheduler). */
  expiry: ExpiryPort;
  now?: () => number;
}

export interface ConnectionContext {
  key: number;
  meters: ConnectionMeters;
  since?: number;
  upgrade: UpgradePort;
  router: RouterRef;
  expiry: ExpiryPort;
  now: () => number;
  user?: Principal;
  expiresAt?: number;
  outlet?: ConnectionOutlet;
  replayedUpTo?: number;
  closeCode?: number;
  closeReason?: string;
}

/** Stands in for the upgrade once it is answered, so the request's objects can be collected. */
export const ANSWERED: UpgradePort = { accept: () => undefined, refuse: () => undefined };

export const connectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionInput,
  },
  actors: {
    /** Sends stored frames after `since` to the outlet; resolves with the last id sent. */
    replay: fromPromise<number, { user: Principal; since: number; outlet: ConnectionOutlet }>(async () => {
      throw new Error('replay is provided by the hub');
    }),
  },
  guards: {
    resuming: ({ context }) => context.since !== undefined,
  },
  actions: {
    acceptUpgrade: ({ context }) => context.upgrade.accept({ user: context.user!, expiresAt: context.expiresAt }),
    refuseUpgrade: ({ context }) => context.upgrade.refuse(Errors.invalidToken()),
    failUpgrade: ({ context }) => context.upgrade.refuse(Errors.unavailable('the hub could not check the credential; try again')),
    bind: ({ context }) => context.router.send({ type: 'BIND', endpoint: context.outlet! }),
    unbind: ({ context }) => context.router.send({ type: 'UNBIND', endpoint: context.outlet! }),
    // Agent tokens do not expire: no timer, so ten thousand idle agents hold ten thousand fewer.
    // The timer measures the lifetime on a monotonic clock from here, and its firing is final: a
    // wall clock stepped back must not keep an expired session open.
    watchExpiry: ({ context, self }) => {
      if (context.expiresAt !== undefined) context.expiry.watch(self, context.expiresAt - context.now());
    },
    unwatchExpiry: ({ context, self }) => context.expiry.unwatch(self),
    endReplay: ({ context }) => context.outlet!.endReplay(context.replayedUpTo ?? 0),
    closeSocket: ({ context }) => context.outlet!.end(context.closeCode ?? CloseCode.normal, context.closeReason ?? ''),
  },
}).createMachine({
  id: 'connection',
  context: ({ input }) => ({
    key: input.key,
    meters: input.meters,
    since: input.since,
    upgrade: input.upgrade,
    router: input.router,
    expiry: input.expiry,
    now: input.now ?? Date.now,
  }),
  initial: 'authenticating',
  states: {
    authenticating: {
      on: {
        AUTHENTICATED: {
          target: 'upgrading',
          actions: [assign(({ event }) => ({ user: event.session.user, expiresAt: event.session.expiresAt })), 'acceptUpgrade', assign({ upgrade: ANSWERED })],
        },
        UNAUTHENTICATED: { target: 'refused', actions: 'refuseUpgrade' },
        AUTH_FAILED: { target: 'refused', actions: 'failUpgrade' },
        ABORTED: 'refused',
      },
    },
    upgrading: {
      on: {
        OPENED: { target: 'open', actions: assign({ outlet: ({ event }) => event.outlet }) },
        ABORTED: 'refused',
      },
    },
    open: {
      entry: ['bind', 'watchExpiry'],
      exit: ['unbind', 'unwatchExpiry'],
      initial: 'starting',
      states: {
        starting: { always: [{ guard: 'resuming', target: 'replaying' }, { target: 'live' }] },
        replaying: {
          invoke: {
            src: 'replay',
            input: ({ context }) => ({ user: context.user!, since: context.since!, outlet: context.outlet! }),
            onDone: { target: 'live', actions: [assign({ replayedUpTo: ({ event }) => event.output }), 'endReplay'] },
            onError: {
              target: '#connection.closing',
              actions: assign({ closeCode: CloseCode.internal, closeReason: 'resume failed; reconnect to try again' }),
            },
          },
        },
        live: {},
      },
      on: {
        SESSION_EXPIRED: {
          target: 'closing',
          actions: assign({ closeCode: CloseCode.tokenExpired, closeReason: 'session expired; log in again' }),
        },
        CLOSE: { target: 'closing', actions: assign({ closeCode: ({ event }) => event.code, closeReason: ({ event }) => event.reason }) },
        SOCKET_CLOSED: { target: 'closed', actions: assign({ closeCode: ({ context, event }) => context.closeCode ?? event.code }) },
      },
    },
    closing: {
      entry: 'closeSocket',
      on: { SOCKET_CLOSED: 'closed' },
    },
    closed: { type: 'final' },
    refused: { type: 'final' },
  },
});

export type ConnectionActor = ActorRefFrom<typeof connectionMachine>;
