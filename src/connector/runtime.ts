// The live side of the enabled connector: its platform API client, the long connection that
// brings platform messages in (when CHATPLATFORM_WS_ENABLED), the rate-limited queue that takes
// Butler's answers out, and one router endpoint per platform identity.
//
// Inbound hand-off: an accepted platform message is posted through the pipeline as a CHAT from the
// platform user's hub identity to Butler, in that user's thread for the platform chat (`receive`).
// Outbound hook: the router delivers frames addressed to a platform identity to its endpoint here,
// as it would to a socket; a stored CHAT from Butler goes back to the platform chat (`onFrame`).
import type { Logger } from 'pino';
import type { RouterRef } from '../actors/connection.js';
import { HubError } from '../errors.js';
import { formatZodError } from '../protocol/validation.js';
import type { MessageFrame } from '../protocol/frames.js';
import type { UsersRepo } from '../store/repositories/users.js';
import { toPrincipal } from '../delivery/directory.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { ConnectorLog } from './log.js';
import { filterMessage, messageReceiveEvent } from './inboundFilter.js';
import type { PlatformIdentities } from './identities.js';
import { createLongConnection, type LongConnection, type LongConnectionState } from './longConnection.js';
import { createOutboundQueue, type OutboundQueue } from './outboundQueue.js';
import { createPlatformApi, describeOutcome, type PlatformApi } from './platformApi.js';
import type { ConnectorConfig } from './views.js';
import type { Endpoint, Principal } from '../delivery/types.js';
import { systemTimers, type Timers } from '../clock.js';

export interface PlatformSettings {
  baseUrl: string;
  wsEnabled: boolean;
  timeoutMs: number;
}

export interface RuntimeDeps {
  platform: PlatformSettings;
  logger: Logger;
  log: ConnectorLog;
  identities: PlatformIdentities;
  users: UsersRepo;
  pipeline: Pipeline;
  router: RouterRef;
  /** Pauses between send attempts of one message (tests shorten them). */
  retryDelaysMs?: readonly number[];
  /** The hub's timers: retry pauses, the send-rate window, the long connection's backoff. */
  timers?: Timers;
}

interface Outbound {
  userId: number;
  threadId: number | undefined;
  text: string;
  /** The hub's stored id of Butler's answer. */
  messageId: number;
}

interface Active {
  config: ConnectorConfig;
  api: PlatformApi;
  queue: OutboundQueue<Outbound>;
  connection?: LongConnection;
  /** The bot's own open_id once known: a group mention of it is what mention_required asks for. */
  botOpenId?: string;
}

/** Message ids seen lately: a platform re-delivery is dropped before any work. */
const SEEN_MAX = 10_000;
const RETRY_DELAYS_MS = [1000, 3000];

const sameCredentials = (a: ConnectorConfig, b: ConnectorConfig) =>
  a.app_id === b.app_id && a.app_secret === b.app_secret && a.verification_token === b.verification_token && a.encrypt_key === b.encrypt_key;

export function createConnectorRuntime(deps: RuntimeDeps) {
  const { platform, logger, log, identities, pipeline, router } = deps;
  const retryDelays = deps.retryDelaysMs ?? RETRY_DELAYS_MS;
  const timers = deps.timers ?? systemTimers;
  let active: Active | undefined;
  let butler: Principal | undefined;
  const endpoints = new Map<number, Endpoint>();
  const seen = new Set<string>();
  /** Inbound events are handled one at a time, in arrival order. */
  let inbound: Promise<void> = Promise.resolve();

  function apiFor(config: ConnectorConfig): PlatformApi {
    return createPlatformApi({ baseUrl: platform.baseUrl, timeoutMs: platform.timeoutMs, appId: config.app_id, appSecret: config.app_secret });
  }

  async function loadButler(): Promise<Principal | undefined> {
    const { rows } = await deps.users.list({ roles: ['BUTLER'], offset: 0, limit: 1 });
    butler = rows[0] ? toPrincipal(rows[0]) : undefined;
    return butler;
  }

  // ---- outbound ------------------------------------------------------------------------------

  function bind(user: Principal): void {
    if (endpoints.has(user.id)) return;
    const endpoint: Endpoint = {
      // Negative: never the key of a socket.
      key: -user.id,
      user,
      deliver: (_text, id, frame) => onFrame(user, frame, id),
      close: () => {
        if (endpoints.get(user.id) !== endpoint) return;
        endpoints.delete(user.id);
        router.send({ type: 'UNBIND', endpoint });
      },
    };
    endpoints.set(user.id, endpoint);
    router.send({ type: 'BIND', endpoint });
  }

  function onFrame(user: Principal, frame: MessageFrame | undefined, id: number | undefined): void {
    // Only stored CHAT from Butler to this identity: stream chunks, telemetry, presence and everything
    // else an identity's endpoint hears (it counts as a human) is skipped.
    if (id === undefined || frame?.type !== 'CHAT' || butler === undefined || frame.sender_id !== butler.id) return;
    if (frame.target_id !== user.id || typeof frame.payload !== 'string') return;
    const item: Outbound = { userId: user.id, threadId: frame.conversation_id, text: frame.payload, messageId: id };
    if (!active) {
      logger.warn({ userId: user.id, messageId: id }, 'connector: an answer for a chat-platform user arrived while no connector is enabled; not sent');
      return;
    }
    if (!active.queue.push(item)) {
      void log.write(active.config.id, 'ERROR', 'outbound_dropped', `hub message ${id} for user ${user.id} not sent: the outbound queue is full`);
    }
  }

  /** Sends one answer to its platform chat; transport failures are tried again, refusals are not. */
  async function send(current: Active, item: Outbound): Promise<void> {
    const connectorId = current.config.id;
    const target = await identities.chatFor(item.userId, item.threadId);
    if (!target) {
      await log.write(connectorId, 'WARNING', 'outbound_dropped', `hub message ${item.messageId} not sent: no platform chat known for user ${item.userId}`);
      return;
    }
    for (let attempt = 0; ; attempt++) {
      const outcome = await current.api.sendText(target.chat_id, item.text);
      if (outcome.kind === 'accepted') {
        await log.write(
          connectorId,
          'SUCCESS',
          'outbound_sent',
          `hub message ${item.messageId} sent to chat ${target.chat_id} (platform message ${outcome.value})`,
        );
        return;
      }
      const transient = outcome.kind !== 'rejected';
      if (!transient || attempt >= retryDelays.length || active !== current) {
        await log.write(
          connectorId,
          'ERROR',
          'outbound_failed',
          `hub message ${item.messageId} to chat ${target.chat_id} not sent: ${describeOutcome(outcome)}`,
        );
        return;
      }
      await new Promise<void>((resolve) => timers.setTimeout(resolve, retryDelays[attempt]!).unref?.());
    }
  }

  // ---- inbound -------------------------------------------------------------------------------

  function receive(connectorId: number, raw: unknown): void {
    inbound = inbound
      .then(() => handle(connectorId, raw))
      .catch((err: unknown) => {
        void log.write(connectorId, 'ERROR', 'inbound_failed', `an inbound event could not be handled: ${(err as Error).message}`);
      });
  }

  async function handle(connectorId: number, raw: unknown): Promise<void> {
    const current = active;
    if (!current || current.config.id !== connectorId) {
      await log.write(connectorId, 'WARNING', 'inbound_dropped', 'event for a connector that is not enabled: dropped');
      return;
    }
    const parsed = messageReceiveEvent.safeParse(raw);
    if (!parsed.success) {
      await log.write(connectorId, 'WARNING', 'inbound_dropped', `malformed im.message.receive_v1 event dropped: ${formatZodError(parsed.error, raw)}`);
      return;
    }
    const event = parsed.data;
    const config = current.config;
    const { message_id: messageId, chat_id: chatId } = event.message;
    const from = event.sender.sender_id.open_id;
    if (config.verification_token !== '' && event.token !== undefined && event.token !== config.verification_token) {
      await log.write(connectorId, 'WARNING', 'inbound_dropped', `message ${messageId} dropped: its verification token does not match the connector's`);
      return;
    }
    if (seen.has(messageId)) {
      await log.write(connectorId, 'INFO', 'inbound_duplicate', `message ${messageId} delivered again by the platform: ignored`);
      return;
    }
    if (seen.size >= SEEN_MAX) seen.delete(seen.values().next().value!);
    seen.add(messageId);
    const verdict = filterMessage(config, event, current.botOpenId);
    if (!verdict.accepted) {
      await log.write(connectorId, 'INFO', 'inbound_filtered', `message ${messageId} from ${from} in chat ${chatId} filtered: ${verdict.reason}`);
      return;
    }
    const peer = butler ?? (await loadButler());
    if (!peer) throw new Error('there is no Butler user to hand the message to');
    const { user, created } = await identities.identityOf(from);
    if (created) bind(user);
    const threadId = await identities.threadOf(user, peer, chatId);
    // The platform's message id is the local_id: a re-delivery after a restart is stored once.
    let accepted;
    try {
      accepted = await pipeline.post(user, { type: 'CHAT', payload: verdict.text, target_id: peer.id, conversation_id: threadId, local_id: messageId });
    } catch (err) {
      // The hub's own rules refused it (e.g. text that poses as a Butler directive): the sender's
      // mistake, logged as such, not a failure of the connector.
      if (!(err instanceof HubError) || err.status >= 500) throw err;
      await log.write(connectorId, 'WARNING', 'inbound_refused', `message ${messageId} from ${from} in chat ${chatId} refused by the hub: ${err.message}`);
      return;
    }
    const { stored } = accepted;
    if (stored?.duplicate) {
      await log.write(connectorId, 'INFO', 'inbound_duplicate', `message ${messageId} was stored before (hub message ${stored.id}): ignored`);
      return;
    }
    await log.write(
      connectorId,
      'INFO',
      'inbound_accepted',
      `message ${messageId} from ${from} in chat ${chatId} passed to Butler as hub message ${stored?.id} (user ${user.id}, thread ${threadId})`,
    );
  }

  // ---- lifecycle -----------------------------------------------------------------------------

  function connectionState(connectorId: number) {
    return (state: LongConnectionState, detail: string) => {
      const level = state === 'connected' ? 'SUCCESS' : state === 'waiting' ? 'WARNING' : state === 'refused' ? 'ERROR' : 'INFO';
      void log.write(connectorId, level, 'connection', detail);
    };
  }

  async function learnBotId(current: Active): Promise<void> {
    const outcome = await current.api.botOpenId();
    if (active !== current) return;
    if (outcome.kind === 'accepted') current.botOpenId = outcome.value;
    else
      await log.write(
        current.config.id,
        'WARNING',
        'bot_info',
        `bot identity unknown (${describeOutcome(outcome)}): any mention in a group counts as one of the bot`,
      );
  }

  function stop(connectorId?: number): void {
    const current = active;
    if (!current || (connectorId !== undefined && current.config.id !== connectorId)) return;
    active = undefined;
    current.connection?.stop();
    const unsent = current.queue.stop();
    if (unsent.length > 0) void log.write(current.config.id, 'WARNING', 'outbound_dropped', `${unsent.length} queued answers not sent: the connector stopped`);
  }

  return {
    /** Binds the endpoints of every known platform identity (at hub start and after a reset). */
    async init(): Promise<void> {
      await loadButler();
      const ids = await identities.allUserIds();
      for (const id of ids) {
        const row = await deps.users.findById(id);
        if (row) bind(toPrincipal(row));
      }
    },

    /** Runs the connector (enabled): outbound sends, and the long connection when switched on. */
    start(config: ConnectorConfig): void {
      stop();
      const current: Active = {
        config,
        api: apiFor(config),
        queue: createOutboundQueue<Outbound>({ perMinute: config.rate_limit_per_minute, send: (item) => send(current, item), timers: deps.timers }),
      };
      active = current;
      void learnBotId(current);
      if (!platform.wsEnabled) return;
      current.connection = createLongConnection({
        baseUrl: platform.baseUrl,
        logger,
        onMessage: (event) => receive(config.id, event),
        onState: connectionState(config.id),
        timers: deps.timers,
      });
      current.connection.start({
        appId: config.app_id,
        appSecret: config.app_secret,
        verificationToken: config.verification_token,
        encryptKey: config.encrypt_key,
      });
    },

    stop,

    /** The inbound hand-off: a platform event for a connector, queued and handled in order. */
    receive,

    /** New settings of the running connector (filters, rate limit) apply from the next message. */
    reconfigure(config: ConnectorConfig): void {
      if (!active || active.config.id !== config.id) return;
      if (!sameCredentials(active.config, config)) return this.start(config);
      active.config = config;
      active.queue.setRate(config.rate_limit_per_minute);
    },

    /** The running connector's client when the credentials match, else a fresh one. */
    api(config: ConnectorConfig): PlatformApi {
      return active && active.config.id === config.id && sameCredentials(active.config, config) ? active.api : apiFor(config);
    },

    /** What runs now, for actor inspection: the enabled connector, its long connection and its queue. */
    status(): { connectorId: number | null; connection: string; queuedAnswers: number; identities: number } {
      return {
        connectorId: active?.config.id ?? null,
        connection: active ? (active.connection?.state ?? 'off (CHATPLATFORM_WS_ENABLED=false)') : 'stopped',
        queuedAnswers: active?.queue.depth ?? 0,
        identities: endpoints.size,
      };
    },

    connected(connectorId: number): boolean {
      return active?.config.id === connectorId && active.connection?.state === 'connected';
    },

    /** Everything off: the connection, the queue, the endpoints (hub stop, dev reset). */
    shutdown(): void {
      stop();
      for (const endpoint of [...endpoints.values()]) endpoint.close(1001, 'connector shutting down');
      seen.clear();
      butler = undefined;
    },

    /** Waits until queued inbound events and outbound answers are handled and their log entries written. */
    async settled(): Promise<void> {
      await inbound;
      await active?.queue.drained();
      await log.flushed();
    },
  };
}
export type ConnectorRuntime = ReturnType<typeof createConnectorRuntime>;
