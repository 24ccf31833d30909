// The platform's long-connection event mode (Feishu/Lark "persistent connection"): the SDK's
// WSClient asks `{base}/callback/ws/endpoint` for a socket address, then speaks the platform's
// protobuf frames, merges fragments, answers pings and acknowledges every event once our handler
// returns (so the handler only queues the event). The SDK's own reconnect loop waits minutes between
// tries; here it is off, and the lifecycle machine (longConnectionMachine.ts) restarts the client with
// exponential backoff instead, watching its public connection status. This module is the machine's
// driver: it runs the machine's effects against the SDK (load it, start, check and close a client)
// and turns the SDK's callbacks into the machine's events. The SDK is loaded on first use: hubs
// without the connector never pay for it.
import type * as LarkSdk from '@larksuiteoapi/node-sdk';
import type { Logger } from 'pino';
import { createActor, type ActorOptions } from 'xstate';
import { systemTimers, type TimerHandle, type Timers } from '../clock.js';
import { longConnectionMachine, type LongConnectionCredentials, type LongConnectionEvent, type LongConnectionState } from './longConnectionMachine.js';

export { APP_ID_PATTERN, type LongConnectionCredentials, type LongConnectionState } from './longConnectionMachine.js';

export interface LongConnectionDeps {
  baseUrl: string;
  logger: Logger;
  /** Called with each `im.message.receive_v1` event as the SDK parsed it; must return at once. */
  onMessage(event: unknown): void;
  /** State changes and the reason, for the connector's log. */
  onState(state: LongConnectionState, detail: string): void;
  backoff?: { initialMs: number; maxMs: number };
  /** How often the client's status is checked for a dropped socket. */
  watchMs?: number;
  /** The machine's clock (backoff, status checks): the hub's timers, so a test moves them. */
  timers?: Timers;
}

const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Seconds without any frame after a ping before the socket counts as dead. */
const PING_TIMEOUT_S = 30;

/** The machine's timers (backoff, status checks) never keep the process alive on their own. */
function unrefClock(timers: Timers): NonNullable<ActorOptions<typeof longConnectionMachine>['clock']> {
  return {
    setTimeout(fn: (...args: unknown[]) => void, ms: number) {
      const timer = timers.setTimeout(fn, ms);
      timer.unref?.();
      return timer;
    },
    clearTimeout(id: unknown) {
      timers.clearTimeout(id as TimerHandle);
    },
  };
}

type Sdk = typeof LarkSdk;
type WSClient = LarkSdk.WSClient;

/** The SDK's logger, onto pino: text only (never the objects it passes, which may hold request bodies). */
function sdkLogger(logger: Logger) {
  const line = (args: unknown[]) =>
    args
      .map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : typeof a))
      .join(' ')
      // Socket addresses handed out by the endpoint carry a short-lived ticket.
      .replace(/([?&](?:ticket|access_key)=)[^&\s]+/gi, '$1[redacted]');
  return {
    error: (...args: unknown[]) => logger.warn({ sdk: 'lark' }, line(args)),
    warn: (...args: unknown[]) => logger.warn({ sdk: 'lark' }, line(args)),
    info: (...args: unknown[]) => logger.debug({ sdk: 'lark' }, line(args)),
    debug: (...args: unknown[]) => logger.trace({ sdk: 'lark' }, line(args)),
    trace: (...args: unknown[]) => logger.trace({ sdk: 'lark' }, line(args)),
  };
}

export function createLongConnection(deps: LongConnectionDeps) {
  let sdk: Promise<Sdk> | undefined;
  /** The loaded SDK module: set before SDK_LOADED is sent, so a client can be created at once. */
  let lark: Sdk | undefined;
  /** The client of the current attempt, while one is open (a handle, not state: the machine decides). */
  let client: WSClient | undefined;
  const send = (event: LongConnectionEvent) => actor.send(event);
  const failed = (attempt: number, err: unknown) => send({ type: 'CLIENT_FAILED', attempt, message: (err as Error).message });

  function openClient(lib: Sdk, attempt: number, credentials: LongConnectionCredentials): void {
    const logger = sdkLogger(deps.logger);
    const dispatcher = new lib.EventDispatcher({
      verificationToken: credentials.verificationToken,
      encryptKey: credentials.encryptKey,
      logger,
      loggerLevel: lib.LoggerLevel.warn,
    }).register({
      // Even a stopped connection's late event goes on: the runtime logs why it drops it.
      'im.message.receive_v1': async (event: unknown) => deps.onMessage(event),
    });
    const created = new lib.WSClient({
      appId: credentials.appId,
      appSecret: credentials.appSecret,
      domain: deps.baseUrl.replace(/\/+$/, ''),
      logger,
      loggerLevel: lib.LoggerLevel.warn,
      autoReconnect: false,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      wsConfig: { pingTimeout: PING_TIMEOUT_S },
      onReady: () => send({ type: 'CLIENT_READY', attempt }),
      onError: (err) => failed(attempt, err),
    });
    client = created;
    created.start({ eventDispatcher: dispatcher }).catch((err: unknown) => failed(attempt, err));
  }

  const machine = longConnectionMachine.provide({
    actions: {
      loadSdk: (_, { attempt }) => {
        (sdk ??= import('@larksuiteoapi/node-sdk')).then(
          (loaded) => {
            lark = loaded;
            send({ type: 'SDK_LOADED', attempt });
          },
          (err: unknown) => failed(attempt, err),
        );
      },
      startClient: (_, { attempt, credentials }) => {
        // Synchronous, so a STOP or START that follows always finds the client to close.
        try {
          openClient(lark!, attempt, credentials);
        } catch (err) {
          failed(attempt, err);
        }
      },
      checkClient: (_, { attempt }) => {
        const status = client?.getConnectionStatus().state ?? 'closed';
        if (status !== 'connected') send({ type: 'CONNECTION_LOST', attempt, status });
      },
      closeClient: () => {
        client?.close({ force: true });
        client = undefined;
      },
      report: (_, { state, detail }) => deps.onState(state, detail),
    },
  });
  const actor = createActor(machine, { input: { backoff: deps.backoff, watchMs: deps.watchMs }, clock: unrefClock(deps.timers ?? systemTimers) });
  actor.subscribe({ error: (err) => deps.logger.error({ err }, 'long connection machine failed') });
  actor.start();

  return {
    /** Starts (or restarts, with new credentials) the connection. */
    start(credentials: LongConnectionCredentials): void {
      actor.send({ type: 'START', credentials });
    },

    stop(): void {
      actor.send({ type: 'STOP' });
    },

    get state(): LongConnectionState {
      return actor.getSnapshot().context.reported;
    },

    /** The machine's snapshot, for inspection and tests. */
    snapshot() {
      return actor.getSnapshot();
    },
  };
}
export type LongConnection = ReturnType<typeof createLongConnection>;
