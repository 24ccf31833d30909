// Remote A2A agents joining the hub: an admin registers one by its card URL (the card is fetched and
// checked first: checkCard); its row is an ordinary agent (runtime_kind 'a2a') beside a row of where
// its card is and its credential, sealed. The node that leads runs one proxy per remote agent
// (proxy.ts), so in cluster mode each agent is proxied on exactly one node, and a new leader takes
// them all over. An agent registered through another node is announced on the bus.
import type { Logger } from 'pino';
import { z } from 'zod';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { fetch as undiciFetch } from 'undici';
import type { SecretBox } from '../../auth/secrets.js';
import { Errors } from '../../errors.js';
import type { Clock } from '../../clock.js';
import { defineBusMessage, type Bus } from '../../delivery/bus.js';
import { toPrincipal } from '../../delivery/directory.js';
import { toMessageFrame } from '../../protocol/frames.js';
import type { Leadership } from '../../delivery/leadership.js';
import type { Accepted, MessageInput, Principal } from '../../delivery/types.js';
import type { Insertable, Transaction } from 'kysely';
import type { A2aRemoteAgentsRepo } from '../../store/repositories/a2aRemoteAgents.js';
import type { A2aRemoteAgentsTable, Database } from '../../store/schema.js';
import type { UsersRepo } from '../../store/repositories/users.js';
import type { RouterPort } from '../replies.js';
import { webhookDispatcher } from '../webhookGuard.js';
import { CardRefused, fetchCard, type FetchedCard } from './cardFetch.js';
import { answerLocalId, remoteMessageId } from './messageId.js';
import { createProxy, type Proxy } from './proxy.js';

/** A card's longest fetch, and its largest size. */
export const CARD_TIMEOUT_MS = 5000;
export const CARD_MAX_BYTES = 256 * 1024;
/** A call to the agent (a whole answer, streamed or not). */
const CALL_TIMEOUT_MS = 120_000;
/**
 * The back-log carried to a remote agent when its proxy binds: chats of the last day, at most the
 * newest 100. Older chat is still stored and in the history; carried a day late it would answer a
 * question nobody waits for, and an agent down for weeks should not wake to thousands of calls.
 */
export const BACKLOG_MAX_AGE_MS = 24 * 60 * 60 * 1000;
export const BACKLOG_MAX_CHATS = 100;
/** Keys of the proxies' endpoints: negative and far from sockets', the connector's and A2A callers'. */
const KEY_BASE = -(2 ** 41);

/** "A remote agent was registered through this node": the leader starts its proxy. */
export const remoteAgentAddedMessage = defineBusMessage('a2a-remote-agent-added', z.object({ userId: z.number().int().positive() }), { durable: true });

export interface RemoteAgentsDeps {
  repo: A2aRemoteAgentsRepo;
  users: Pick<UsersRepo, 'findById'>;
  /** Seals the credentials the hub sends remote agents. */
  box: SecretBox;
  allowPrivateNetwork: boolean;
  /** Between checks of a card while its agent is online (A2A_AGENT_CHECK_INTERVAL). */
  checkIntervalMs: number;
  pipeline: { post(sender: Principal, input: MessageInput): Promise<Accepted> };
  router: RouterPort;
  bus: Bus;
  leadership: Pick<Leadership, 'isLeader'>;
  meter: { forwarded(outcome: 'ok' | 'failed'): void };
  clock: Clock;
  logger: Logger;
}

export function createRemoteAgents(deps: RemoteAgentsDeps) {
  const { repo, logger } = deps;
  const cardDispatcher = webhookDispatcher(deps.allowPrivateNetwork, CARD_TIMEOUT_MS, 'card URL');
  const callDispatcher = webhookDispatcher(deps.allowPrivateNetwork, CARD_TIMEOUT_MS, 'agent endpoint');
  const proxies = new Map<number, Proxy>();
  let running = false;
  let keys = 0;
  const timing = {
    recheckMs: deps.checkIntervalMs,
    backoffMs: Math.min(1000, deps.checkIntervalMs),
    maxBackoffMs: Math.max(deps.checkIntervalMs, 60_000),
  };

  const check = (cardUrl: string, credential: string | undefined, signal?: AbortSignal) =>
    fetchCard(cardUrl, {
      allowPrivate: deps.allowPrivateNetwork,
      dispatcher: cardDispatcher,
      timeoutMs: CARD_TIMEOUT_MS,
      maxBytes: CARD_MAX_BYTES,
      credential,
      signal,
    });

  /** The SDK's client for a card: JSON-RPC (v1.0, or v0.3 for an older card) through the guard, with the credential. */
  function clientFor(card: FetchedCard, credential: string | undefined): Promise<Client> {
    const fetchImpl = ((input: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      if (credential) headers.set('Authorization', `Bearer ${credential}`);
      const signal = init?.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(CALL_TIMEOUT_MS)]) : AbortSignal.timeout(CALL_TIMEOUT_MS);
      const url = input instanceof Request ? input.url : input;
      const options = { ...(init as object), headers: Object.fromEntries(headers), signal, redirect: 'error', dispatcher: callDispatcher };
      return undiciFetch(url, options as Parameters<typeof undiciFetch>[1]);
    }) as unknown as typeof fetch;
    const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })] });
    return factory.createFromAgentCard(card.card);
  }

  async function startOne(userId: number): Promise<void> {
    if (!running || proxies.has(userId)) return;
    const [row, user] = await Promise.all([repo.find(userId), deps.users.findById(userId)]);
    if (!row || !user || user.role !== 'AGENT' || !running || proxies.has(userId)) return;
    const credential = row.credential === null ? undefined : deps.box.open(row.credential);
    const proxy = createProxy({
      agent: toPrincipal(user),
      key: KEY_BASE - ++keys,
      timing,
      router: deps.router,
      check: async (signal) => {
        // Deleted while offline (no endpoint bound to hear the revocation): the proxy ends here.
        if (!(await repo.find(userId))) {
          drop(userId, proxy);
          throw new Error('the agent was deleted');
        }
        return check(row.card_url, credential, signal);
      },
      clientFor: (card) => clientFor(card, credential),
      cardChanged: (card) =>
        void repo
          .updateCard(userId, card.json, deps.clock())
          .catch((err: unknown) => logger.warn({ err, userId }, 'a2a: could not store a remote agent’s new card')),
      post: deps.pipeline.post,
      carried: row.carried_id,
      backlog: async (afterId) => {
        const since = new Date(Date.parse(deps.clock()) - BACKLOG_MAX_AGE_MS).toISOString();
        const rows = await repo.backlog(userId, afterId, since, BACKLOG_MAX_CHATS);
        return rows.map((r) => toMessageFrame({ ...r, payload: JSON.parse(r.payload) as unknown }));
      },
      answered: async (chatIds) => {
        const stored = await repo.storedLocalIds(userId, chatIds.map(answerLocalId));
        return new Set(chatIds.filter((id) => stored.has(answerLocalId(id))));
      },
      messageIdOf: (chatId) => remoteMessageId(row, chatId),
      setCarried: (id) =>
        repo.setCarried(userId, id).catch((err: unknown) => logger.warn({ err, userId }, 'a2a: could not store a remote agent’s carried mark')),
      secrets: credential ? [credential] : [],
      meter: deps.meter,
      closed: () => {
        // Deleted, or its sessions revoked: stop here, and start again if it is still a remote agent.
        if (proxies.get(userId) !== proxy || !running) return;
        proxies.delete(userId);
        proxy.stop();
        // The new proxy reads the stored mark: the old one's writes land first.
        void proxy
          .written()
          .then(() => startOne(userId))
          .catch((err: unknown) => logger.error({ err, userId }, 'a2a: could not restart a remote agent’s proxy'));
      },
      logger,
    });
    proxies.set(userId, proxy);
    proxy.start();
  }

  function drop(userId: number, proxy: Proxy): void {
    if (proxies.get(userId) !== proxy) return;
    proxies.delete(userId);
    proxy.stop();
  }

  function stop(): void {
    running = false;
    for (const proxy of proxies.values()) proxy.stop();
    proxies.clear();
  }

  const startLogged = (userId: number) =>
    void startOne(userId).catch((err: unknown) => logger.error({ err, userId }, 'a2a: could not start a remote agent’s proxy'));

  deps.bus.subscribe(remoteAgentAddedMessage, ({ userId }) => {
    if (deps.leadership.isLeader()) startLogged(userId);
  });

  return {
    /** What registration needs (services/agents.ts RemoteAgentPort). */
    registration: {
      /** Fetches and checks a card before registration; a refusal is a 400 naming the reason. */
      async checkCard(cardUrl: string, credential: string | undefined): Promise<{ json: string; description: string }> {
        try {
          const { json, card } = await check(cardUrl, credential);
          return { json, description: card.description };
        } catch (err) {
          if (err instanceof CardRefused) throw Errors.badRequest(`card_url: ${err.message}`);
          throw err;
        }
      },
      seal: (credential: string) => deps.box.seal(credential),
      insert: (row: Insertable<A2aRemoteAgentsTable>, trx: Transaction<Database>) => repo.insert(row, trx),
      /** A remote agent's rows were stored: its proxy starts here if this node leads, else on the leader. */
      added(userId: number): void {
        if (deps.leadership.isLeader()) startLogged(userId);
        else deps.bus.publish(remoteAgentAddedMessage, { userId });
      },
    },

    /** This node leads: a proxy per remote agent. */
    async start(): Promise<void> {
      running = true;
      const rows = await repo.list();
      for (const row of rows) if (row.role === 'AGENT') await startOne(row.user_id);
      if (rows.length > 0) logger.info({ agents: rows.length }, 'a2a: proxying the remote agents');
    },

    /** This node no longer leads: every proxy stops, its agent's endpoint unbound. */
    stop,

    /** The hub stops: the proxies, then the connections to the agents; the marks of chats carried are stored first. */
    async close(): Promise<void> {
      const stopping = [...proxies.values()];
      stop();
      await Promise.all(stopping.map((p) => p.written()));
      await Promise.all([cardDispatcher.close(), callDispatcher.close()]);
    },

    /** The proxies running here (inspection, tests). */
    proxies(): ReadonlyMap<number, Proxy> {
      return proxies;
    },
  };
}
export type RemoteAgents = ReturnType<typeof createRemoteAgents>;
