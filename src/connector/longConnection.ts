// The platform's long-connection event mode (Feishu/Lark "persistent connection"): the SDK's
// WSClient asks `{base}/callback/ws/endpoint` for a socket address, then speaks the platform's
// protobuf frames, merges fragments, answers pings and acknowledges every event once our handler
// returns (so the handler only queues the event). The SDK's own reconnect loop waits minutes between
// tries; here it is off, and this module restarts the client with exponential backoff instead,
// watching its public connection status. The SDK is loaded on first use: hubs without the
// connector never pay for it.
import type * as LarkSdk from '@larksuiteoapi/node-sdk';
import type { Logger } from 'pino';

export interface LongConnectionCredentials {
  appId: string;
  appSecret: string;
  verificationToken?: string;
  encryptKey?: string;
}

/** `refused`: not opened at all (the credentials cannot work); `waiting`: before the next try. */
export type LongConnectionState = 'stopped' | 'refused' | 'connecting' | 'connected' | 'waiting';

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
}

/** Feishu/Lark app ids; the SDK silently refuses to start with anything else. */
export const APP_ID_PATTERN = /^cli_[0-9a-fA-F]{16}$/;

const DEFAULT_BACKOFF = { initialMs: 500, maxMs: 30_000 };
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Seconds without any frame after a ping before the socket counts as dead. */
const PING_TIMEOUT_S = 30;

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
  const backoff = deps.backoff ?? DEFAULT_BACKOFF;
  const watchMs = deps.watchMs ?? 250;
  let sdk: Promise<Sdk> | undefined;
  let client: WSClient | undefined;
  let generation = 0;
  let failures = 0;
  let state: LongConnectionState = 'stopped';
  let timer: NodeJS.Timeout | undefined;

  const setState = (next: LongConnectionState, detail: string) => {
    state = next;
    deps.onState(next, detail);
  };

  function clearTimer() {
    if (timer) clearTimeout(timer);
    timer = undefined;
  }

  function discard() {
    clearTimer();
    client?.close({ force: true });
    client = undefined;
  }

  /** Restarts after a failure: 1×, 2×, 4× … the initial delay up to the cap, with jitter. */
  function retry(credentials: LongConnectionCredentials, gen: number, reason: string) {
    if (gen !== generation) return;
    discard();
    const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures);
    const delay = Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
    failures++;
    setState('waiting', `${reason}; reconnecting in ${delay} ms (attempt ${failures})`);
    timer = setTimeout(() => void open(credentials, gen), delay);
    timer.unref();
  }

  /** Polls the client's public status: a socket that dropped after connecting is restarted. */
  function watch(credentials: LongConnectionCredentials, gen: number, watched: WSClient) {
    timer = setTimeout(() => {
      if (gen !== generation || client !== watched) return;
      const status = watched.getConnectionStatus().state;
      if (status === 'connected') return watch(credentials, gen, watched);
      retry(credentials, gen, `connection lost (${status})`);
    }, watchMs);
    timer.unref();
  }

  async function open(credentials: LongConnectionCredentials, gen: number): Promise<void> {
    const lark = await (sdk ??= import('@larksuiteoapi/node-sdk'));
    if (gen !== generation) return;
    setState('connecting', 'opening the long connection');
    const logger = sdkLogger(deps.logger);
    const dispatcher = new lark.EventDispatcher({
      verificationToken: credentials.verificationToken,
      encryptKey: credentials.encryptKey,
      logger,
      loggerLevel: lark.LoggerLevel.warn,
    }).register({
      // Even a stopped connection's late event goes on: the runtime logs why it drops it.
      'im.message.receive_v1': async (event: unknown) => deps.onMessage(event),
    });
    const created = new lark.WSClient({
      appId: credentials.appId,
      appSecret: credentials.appSecret,
      domain: deps.baseUrl.replace(/\/+$/, ''),
      logger,
      loggerLevel: lark.LoggerLevel.warn,
      autoReconnect: false,
      handshakeTimeoutMs: HANDSHAKE_TIMEOUT_MS,
      wsConfig: { pingTimeout: PING_TIMEOUT_S },
      onReady: () => {
        if (gen !== generation || client !== created) return;
        failures = 0;
        setState('connected', 'long connection established');
        watch(credentials, gen, created);
      },
      onError: (err) => retry(credentials, gen, `long connection failed: ${err.message}`),
    });
    client = created;
    await created.start({ eventDispatcher: dispatcher });
  }

  return {
    /** Starts (or restarts, with new credentials) the connection. */
    start(credentials: LongConnectionCredentials): void {
      discard();
      const gen = ++generation;
      failures = 0;
      if (!APP_ID_PATTERN.test(credentials.appId)) {
        setState('refused', 'long connection not opened: app_id must be "cli_" followed by 16 hexadecimal digits');
        return;
      }
      open(credentials, gen).catch((err: unknown) => retry(credentials, gen, `long connection failed: ${(err as Error).message}`));
    },

    stop(): void {
      generation++;
      discard();
      if (state !== 'stopped') setState('stopped', 'long connection closed');
    },

    get state(): LongConnectionState {
      return state;
    },
  };
}
export type LongConnection = ReturnType<typeof createLongConnection>;
