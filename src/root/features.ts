// The feature stage: the bootstrap of an empty database, the chat-platform connector, Butler, and
// the services the HTTP routes call. Each is built from the core and the auth stage; none starts
// anything here (the hub starts Butler and the connector once all of them exist).
import type { Logger } from 'pino';
import type { PasswordHasher } from '../auth/passwords.js';
import { createButler, type Butler } from '../butler/index.js';
import { STREAMS_LEDGER } from '../butler/streams.js';
import { createButlerMeter } from '../butler/metrics.js';
import type { Clock, Timers } from '../clock.js';
import type { Config } from '../config.js';
import { createConnector, type Connector } from '../connector/index.js';
import { createConnectorMeter } from '../connector/metrics.js';
import { toPrincipal } from '../delivery/directory.js';
import { createPresenceService } from '../delivery/presence.js';
import type { Metrics } from '../metrics/registry.js';
import { BUTLER_USERNAME } from '../protocol/roles.js';
import { createA2a } from '../a2a/index.js';
import { createA2aMeter } from '../a2a/metrics.js';
import { createAccessTokensService } from '../services/accessTokens.js';
import { createAgentsService } from '../services/agents.js';
import { bootstrap } from '../services/bootstrap.js';
import { createChatService } from '../services/chat.js';
import { createDevMockService } from '../services/devMock.js';
import { createMessagesService } from '../services/messages.js';
import { createOpsInventoryService } from '../services/opsInventory.js';
import { createStatsService } from '../services/stats.js';
import { createRuntimeSampler } from '../services/statsRuntime.js';
import type { Store } from '../store/db.js';
import type { Auth } from './auth.js';
import type { Core } from './core.js';
import type { NodePorts } from './nodePorts.js';
import type { Repos } from './storage.js';

export interface BootstrapOptions {
  config: Config;
  store: Store;
  repos: Repos;
  passwords: PasswordHasher;
  clock: Clock;
  logger: Logger;
  /** Other nodes hold agents too (the presence port is shared): their agents stay as they are at start, and Butler stays ONLINE while any node runs. */
  sharedPresence: boolean;
}

/** `initialise` creates the admin and Butler in an empty database and records the hub's own presence. */
export function createBootstrap(options: BootstrapOptions) {
  const { config, repos, passwords, clock, logger } = options;
  const { users, credentials } = repos;
  const presence = createPresenceService({ users, clock, butlerModel: config.butler.model?.name, sharedPresence: options.sharedPresence });
  return {
    presence,
    async initialise(): Promise<void> {
      if (await bootstrap({ db: options.store.db, users, credentials, passwords, clock, admin: config.auth.initialAdmin })) {
        logger.info({ admin: config.auth.initialAdmin.username }, 'empty database: created the admin (id 1) and Butler (id 2)');
      }
      await presence.hubStarted();
    },
  };
}
export type Bootstrap = ReturnType<typeof createBootstrap>;

export interface ConnectorOptions {
  config: Config;
  store: Store;
  repos: Repos;
  core: Core;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  metrics: Metrics;
  jwtSecret: string;
  ports: Pick<NodePorts, 'bus' | 'leadership'>;
}

export function createConnectorFeature(options: ConnectorOptions): Connector {
  const { config, repos, core } = options;
  return createConnector({
    db: options.store.db,
    users: repos.users,
    threads: repos.threads,
    pipeline: core.pipeline,
    router: core.router,
    clock: options.clock,
    timers: options.timers,
    logger: options.logger,
    platform: config.chatPlatform,
    secret: config.auth.tokenSecret ?? options.jwtSecret,
    meter: createConnectorMeter(options.metrics.factory),
    bus: options.ports.bus,
    leadership: options.ports.leadership,
  });
}

export interface ButlerOptions {
  config: Config;
  repos: Repos;
  core: Core;
  connector: Connector;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  metrics: Metrics;
  ports: Pick<NodePorts, 'bus' | 'leadership' | 'ledger' | 'online'>;
}

/** Butler as the user the bootstrap created (so after `initialise`). */
export async function createButlerFeature(options: ButlerOptions) {
  const { repos, core, connector } = options;
  const row = await repos.users.findByUsername(BUTLER_USERNAME);
  if (!row) throw new Error('the Butler user is missing after bootstrap');
  return createButler({
    settings: options.config.butler,
    butler: toPrincipal(row),
    router: core.router,
    pipeline: core.pipeline,
    directory: core.directory,
    users: repos.users,
    chat: repos.chat,
    authorizations: repos.authorizations,
    isPlatformIdentity: connector.isPlatformIdentity,
    meter: createButlerMeter(options.metrics.factory),
    clock: options.clock,
    timers: options.timers,
    logger: options.logger,
    bus: options.ports.bus,
    leadership: options.ports.leadership,
    ledger: options.ports.ledger(STREAMS_LEDGER),
    online: options.ports.online(core.addresses),
  });
}

/**
 * The singletons follow the leadership, in this order: Butler leads (and ends what a previous leader
 * left open), then the chat-platform connection starts; on losing it both stop here.
 */
export function followLeadership(leadership: NodePorts['leadership'], butler: Butler, connector: Connector): void {
  leadership.onAcquired(async () => {
    await butler.takeOver();
    await connector.start();
  });
  leadership.onLost(() => {
    butler.standby('the hub node running Butler lost its lease; ask again in a moment');
    connector.stop();
  });
}

export interface ServicesOptions {
  store: Store;
  repos: Repos;
  core: Core;
  auth: Auth;
  connector: Connector;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** A2A settings (A2A_ALLOW_PRIVATE_NETWORK). */
  a2a: Config['a2a'];
  /** Where revoked access tokens and A2A task events are told to the other nodes. */
  bus: NodePorts['bus'];
  metrics: Metrics;
  /** After a dev reset wiped the tables: bootstrap again and restart what held the wiped rows. */
  reinitialise(): Promise<void>;
}

/** The services behind the HTTP routes (Butler's authorizations are added by the HTTP stage). */
export function createServices(options: ServicesOptions) {
  const { store, repos, core, auth, connector, clock } = options;
  const { users, credentials, threads, chat, heavy } = repos;
  const a2a = createA2a({
    users,
    threads,
    tasks: repos.a2aTasks,
    pushConfigs: repos.a2aPushConfigs,
    allowPrivateNetwork: options.a2a.allowPrivateNetwork,
    maxOpenTasks: options.a2a.maxOpenTasks,
    pushBox: auth.a2aPushBox,
    pipeline: core.pipeline,
    router: core.router,
    bus: options.bus,
    meter: createA2aMeter(options.metrics.factory),
    clock,
    timers: options.timers,
    logger: options.logger,
  });
  const runtime = createRuntimeSampler({
    clock,
    probes: { sockets: () => core.addresses.summary().endpoints, queueDepth: () => core.pipeline.depth },
  });
  return {
    /** Samples the hub's vital signs for the Actors page; started and stopped by the hub. */
    runtime,
    users: auth.users,
    auth: auth.service,
    agents: createAgentsService({ db: store.db, users, credentials, vault: auth.vault, clock, sessions: core.sessions }),
    messages: createMessagesService({ messages: heavy.messages, users, pipeline: core.pipeline }),
    devMock: createDevMockService({
      store,
      clock,
      users,
      pipeline: core.pipeline,
      sessions: core.sessions,
      connector: connector.service,
      reinitialise: options.reinitialise,
    }),
    chat: createChatService({ users, threads, chat, clock }),
    connector: connector.service,
    stats: createStatsService({ stats: heavy.stats, users, presence: core.presenceLog, runtime, clock }),
    ops: createOpsInventoryService({ repo: repos.opsInventory, box: auth.sshKeyBox, clock }),
    accessTokens: createAccessTokensService({ tokens: repos.accessTokens, users, vault: auth.accessTokenVault, clock, bus: options.bus }),
    /** Seals webhook credentials stored in plain text by an older hub (at start). */
    a2aStart: () => a2a.start(),
    a2aCards: a2a.cards,
    a2aEndpoint: a2a.endpoint,
  };
}
export type Services = ReturnType<typeof createServices>;
