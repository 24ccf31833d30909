// Composition of one hub: config → store → migrations → bootstrap → services → app → listen,
// and the reverse on stop. main.ts runs it for real; tests run it in-process on port 0.
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import { createActor } from 'xstate';
import type { ConnectionActor } from './actors/connection.js';
import { routerMachine } from './actors/router.js';
import { createButler, type Butler } from './butler/index.js';
import { createButlerMeter } from './butler/metrics.js';
import type { Config } from './config.js';
import { BUTLER_USERNAME } from './protocol/roles.js';
import { createApp } from './http/app.js';
import { createRequestGate } from './http/requestGate.js';
import { createRouteTable, type ServedRoute } from './http/routeTable.js';
import { loadWebFiles, type WebBuild } from './http/webFiles.js';
import { createConnectorMeter } from './connector/metrics.js';
import { createPipelineMeter } from './delivery/metrics.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import { createWsMeter, type WsMeter } from './ws/metrics.js';
import { listen } from './http/listen.js';
import { createAgentsService } from './services/agents.js';
import { createTokenVault } from './auth/agentTokens.js';
import { createAuthService } from './auth/service.js';
import { bootstrap } from './services/bootstrap.js';
import { createChatService } from './services/chat.js';
import { createConnector, type Connector } from './connector/index.js';
import { createSystemClock, type Clock } from './clock.js';
import { createDevMockService } from './services/devMock.js';
import { createDirectory, toPrincipal } from './delivery/directory.js';
import { createJwtIssuer } from './auth/jwt.js';
import { createLoginThrottle } from './auth/loginThrottle.js';
import { createMessagesService } from './services/messages.js';
import { createLiveSessions } from './actors/liveSessions.js';
import { createPasswordHasher } from './auth/passwords.js';
import { createPipeline, type Pipeline } from './delivery/pipeline.js';
import { createInspection, type Inspection } from './ops/inspection.js';
import { connectionsSource, routerSource } from './ops/inspectionSources.js';
import { butlerSource } from './butler/inspection.js';
import { connectorSource } from './connector/inspection.js';
import { createPresenceService, socketPresence } from './delivery/presence.js';
import { createReadiness } from './ops/readiness.js';
import { createReplay } from './delivery/replay.js';
import { developmentSecret } from './auth/secrets.js';
import { createUsersService } from './services/users.js';
import { openStore, type Store } from './store/db.js';
import { migrate } from './store/migrate.js';
import { createAuthorizationsRepo } from './store/repositories/authorizations.js';
import { createChatRepo } from './store/repositories/chat.js';
import { createCredentialsRepo } from './store/repositories/credentials.js';
import { createMessagesRepo } from './store/repositories/messages.js';
import { createThreadsRepo } from './store/repositories/threads.js';
import { createUsersRepo } from './store/repositories/users.js';
import { createCorkAnchor } from './ws/corkAnchor.js';
import { attachWebSocket } from './ws/edge.js';
import { createSendBatch } from './ws/sendBatch.js';

type RouterActor = ReturnType<typeof createActor<typeof routerMachine>>;

export interface HubOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** scrypt cost; tests lower it to keep the suite fast. */
  passwordCost?: number;
  migrationsDir?: string;
  drainTimeoutMs?: number;
}

export interface Hub {
  readonly port: number;
  readonly store: Store;
  /** The router actor (systemId 'router'): its snapshot shows the address table. */
  readonly router: RouterActor;
  /** The persist-then-deliver pipeline (its `drain()` waits for everything queued). */
  readonly pipeline: Pipeline;
  /** Butler: its actor (systemId 'butler'), authorization requests and agent relay. */
  readonly butler: Butler;
  /** Live connection actors by connection number. */
  readonly connections: ReadonlyMap<number, ConnectionActor>;
  /** The chat-platform connector (lifecycle service, live connection, platform identities). */
  readonly connector: Connector;
  /** HTTP requests being served right now. */
  inFlightRequests(): number;
  /** Whether upgrades are answered under the cork anchor (see ws/corkAnchor.ts). */
  readonly upgradeAnchorReady: boolean;
  /** The hub's metrics registry; `metrics.factory` declares more families (Butler, the connector). */
  readonly metrics: Metrics;
  /** The live actor system as GET /api/admin/actors shows it; `inspection.add` plugs in more actors. */
  readonly inspection: Inspection;
  /** Every HTTP route the app registered, in order. */
  readonly routes: readonly ServedRoute[];
  stop(): Promise<void>;
}

/** How long shutdown waits for requests in flight before it closes connections anyway. */
const DRAIN_TIMEOUT_MS = 10_000;
/** How long shutdown waits for sockets to finish their close handshake. */
const SOCKET_CLOSE_WAIT_MS = 2_000;

/** One set of repositories over the store, shared by the live side and the services. */
function createRepos(store: Store) {
  const db = store.db;
  return {
    users: createUsersRepo(db),
    credentials: createCredentialsRepo(db),
    messages: createMessagesRepo(db),
    threads: createThreadsRepo(db),
    chat: createChatRepo(db),
    authorizations: createAuthorizationsRepo(db),
  };
}
type Repos = ReturnType<typeof createRepos>;

/** The live side: router, pipeline and what services use to reach open sockets. */
function createLive(store: Store, repos: Repos, options: HubOptions, clock: Clock, metrics: Metrics, wsMeter: WsMeter) {
  const { logger } = options;
  const directory = createDirectory({ users: repos.users });
  const sendBatch = createSendBatch();
  // The pipeline delivers through the router, and the router reports presence to the pipeline;
  // neither calls the other before both exist.
  const pipeline = createPipeline({
    store,
    threads: repos.threads,
    chat: repos.chat,
    directory,
    clock,
    logger,
    deliver: (deliveries) => router.send({ type: 'DELIVER', deliveries }),
    round: (fn) => sendBatch.run(fn),
    meter: createPipelineMeter(metrics.factory),
  });
  const router = createActor(routerMachine, {
    systemId: 'router',
    input: {
      meter: wsMeter,
      presence: socketPresence({ presence: (userId, patch) => pipeline.presence(userId, patch), clock }),
    },
  });
  router.subscribe({ error: (err) => logger.fatal({ err }, 'the router actor failed') });
  router.start();
  return { router, pipeline, directory, sendBatch, sessions: createLiveSessions(router, directory) };
}
type Live = ReturnType<typeof createLive>;

/** Services over the repositories; `initialise` bootstraps an empty database. */
function createServices(
  store: Store,
  repos: Repos,
  options: HubOptions,
  clock: Clock,
  jwtSecret: string,
  live: Live,
  metrics: Metrics,
  wsMeter: WsMeter,
  afterReset: () => void,
) {
  const { config, logger } = options;
  const db = store.db;
  const { users, credentials, messages } = repos;
  const passwords = createPasswordHasher({ cost: options.passwordCost });
  const vault = createTokenVault(config.auth.tokenSecret ?? jwtSecret);
  const jwt = createJwtIssuer(jwtSecret, config.auth.jwtExpiresInSeconds);
  const presence = createPresenceService({ users, clock, butlerModel: config.butler.model?.name });

  const initialise = async () => {
    if (await bootstrap({ db, users, credentials, passwords, clock, admin: config.auth.initialAdmin })) {
      logger.info({ admin: config.auth.initialAdmin.username }, 'empty database: created the admin (id 1) and Butler (id 2)');
    }
    await presence.hubStarted();
  };

  const connector = createConnector({
    db,
    users,
    threads: repos.threads,
    pipeline: live.pipeline,
    router: live.router,
    clock,
    logger,
    platform: config.chatPlatform,
    secret: config.auth.tokenSecret ?? jwtSecret,
    meter: createConnectorMeter(metrics.factory),
  });
  const usersService = createUsersService({ db, users, credentials, passwords, clock, sessions: live.sessions });
  const services = {
    users: usersService,
    auth: createAuthService({
      users,
      credentials,
      passwords,
      jwt,
      vault,
      usersService,
      throttle: createLoginThrottle({
        maxFailures: config.auth.loginMaxFailures,
        maxFailuresPerAddress: config.auth.loginMaxFailuresPerAddress,
        windowSeconds: config.auth.loginFailureWindowSeconds,
      }),
      allowSelfRegistration: config.auth.allowSelfRegistration,
    }),
    agents: createAgentsService({ db, users, credentials, vault, clock, sessions: live.sessions }),
    messages: createMessagesService({ messages, users, pipeline: live.pipeline }),
    devMock: createDevMockService({
      store,
      users,
      pipeline: live.pipeline,
      sessions: live.sessions,
      connector: connector.service,
      reinitialise: async () => {
        await initialise();
        afterReset();
        await connector.reload();
      },
    }),
    chat: createChatService({ users, threads: repos.threads, chat: repos.chat, clock }),
    connector: connector.service,
  };
  return { services, presence, initialise, connector, replay: createReplay({ messages, meter: wsMeter }) };
}

function logWebBuild(logger: Logger, web: WebBuild): void {
  if (web.state === 'loaded') logger.info({ dir: web.dir, files: web.files.size, bytes: web.bytes }, 'dashboard loaded');
  else if (web.state === 'missing') logger.warn({ dir: web.dir }, `no dashboard in ${web.dir} (no index.html): run \`npm run build\` to build it; / answers 404 until then`);
  else logger.info('WEB_DIR is empty: this hub serves no dashboard');
}

export async function startHub(options: HubOptions): Promise<Hub> {
  const { config, logger } = options;
  const clock = options.clock ?? createSystemClock();
  const jwtSecret = config.auth.jwtSecret ?? developmentSecret(config.dataDir);

  const startedAt = performance.now();
  // Compressing the dashboard's files runs on libuv's thread pool while the store opens and migrates;
  // it is awaited (and its failure thrown) where the app needs it.
  const loadingWeb = loadWebFiles(config.webDir);
  loadingWeb.catch(() => undefined);
  const store = openStore(config.db);
  const uwsApp = uWS.App();
  const metrics = createMetrics({ enabled: config.metrics.enabled });
  const wsMeter = createWsMeter(metrics.factory);
  let live: Live | undefined;
  let butlerRef: Butler | undefined;
  let connector: Connector | undefined;
  let stopping: Promise<void> | undefined;
  let stopAnchor: (() => void) | undefined;
  try {
    const applied = await migrate(store, { dir: options.migrationsDir, logger });
    logger.info({ driver: store.driver, applied: applied.length }, 'store ready');
    const migrations = (await store.migrations.applied()).map((m) => m.name);
    const repos = createRepos(store);
    live = createLive(store, repos, options, clock, metrics, wsMeter);
    const created = createServices(store, repos, options, clock, jwtSecret, live, metrics, wsMeter, () => butlerRef?.reset());
    const { services, presence, initialise, replay } = created;
    connector = created.connector;
    await initialise();
    const butlerRow = await repos.users.findByUsername(BUTLER_USERNAME);
    if (!butlerRow) throw new Error('the Butler user is missing after bootstrap');
    const butler = (butlerRef = createButler({
      settings: config.butler,
      butler: toPrincipal(butlerRow),
      router: live.router,
      pipeline: live.pipeline,
      directory: live.directory,
      users: repos.users,
      chat: repos.chat,
      authorizations: repos.authorizations,
      isPlatformIdentity: (userId) => created.connector.isPlatformIdentity(userId),
      meter: createButlerMeter(metrics.factory),
      clock,
      logger,
    }));
    await butler.start();
    await connector.start();

    const anchor = await createCorkAnchor(logger);
    stopAnchor = () => anchor.stop();
    const ws = attachWebSocket({
      uwsApp,
      limits: config.ws,
      logger,
      router: live.router,
      supervisor: live.router,
      pipeline: live.pipeline,
      sendBatch: live.sendBatch,
      anchor,
      authenticate: (credential) => services.auth.session(credential),
      replay,
      authResponse: async (user, payload) => {
        await butler.authorizations.respond(user, payload);
      },
      meter: wsMeter,
    });
    const inspection = createInspection();
    inspection.add(routerSource(live.router));
    inspection.add(connectionsSource(ws.connections));
    inspection.add(butlerSource(butler.actor, butler.relay));
    inspection.add(connectorSource(connector));
    const web = await loadingWeb;
    logWebBuild(logger, web);
    const routeTable = createRouteTable();
    const gate = createRequestGate();
    const app = createApp({
      uwsApp,
      gate,
      logger,
      isProduction: config.isProduction,
      corsOrigins: config.http.corsOrigins,
      bodyLimitBytes: config.http.bodyLimitBytes,
      web,
      webCsp: config.webCsp,
      services: { ...services, authorizations: butler.authorizations },
      operations: {
        routeTable,
        metrics,
        metricsToken: config.metrics.token,
        readiness: createReadiness({ store, migrations, stopping: () => stopping !== undefined, logger }),
        inspection,
        startedAt,
      },
    });
    const listener = await listen(app, config.server.host, config.server.port);
    const { router, pipeline } = live;
    const liveConnector = connector;

    const stop = async () => {
      // Fixed order: stop accepting → close sockets (1001) → let requests in flight finish → commit
      // everything queued → record the hub's own presence → close connections → close the store.
      listener.stopAccepting();
      ws.stopAccepting();
      // No more platform events in; answers still queued for the platform are logged as not sent.
      liveConnector.stop();
      router.send({ type: 'SHUTDOWN' });
      // Answers in progress end their streams ("the hub is shutting down") before the last commit.
      await butler.stop();
      if (!(await gate.close(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS))) {
        logger.warn({ inFlight: gate.inFlight }, 'requests still in flight after the drain timeout; closing anyway');
      }
      await pipeline.drain();
      await liveConnector.settled();
      await presence.hubStopping().catch((err: unknown) => logger.warn({ err }, 'could not record Butler going offline'));
      // Sockets were told to close (1001); let their close handshakes finish before the app goes.
      if (!(await ws.closed(SOCKET_CLOSE_WAIT_MS))) logger.warn({ open: ws.connections.size }, 'sockets still open after the close wait; closing anyway');
      // uWS flushes a corked response when the current callback returns; close only after that.
      await new Promise((resolve) => setImmediate(resolve));
      uwsApp.close();
      anchor.stop();
      router.stop();
      await store.close();
    };
    return {
      port: listener.port,
      store,
      router,
      pipeline,
      butler,
      connections: ws.connections,
      connector: liveConnector,
      inFlightRequests: () => gate.inFlight,
      get upgradeAnchorReady() {
        return anchor.ready;
      },
      metrics,
      inspection,
      routes: routeTable.served,
      stop: () => (stopping ??= stop()),
    };
  } catch (err) {
    await butlerRef?.stop().catch(() => undefined);
    connector?.stop();
    live?.router.stop();
    stopAnchor?.();
    uwsApp.close();
    await store.close().catch(() => undefined);
    throw err;
  }
}
