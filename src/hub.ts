// Composition of one hub, in stages: store → repositories → the node's ports (bus, leadership,
// presence, ledger: root/node.ts, the one place that knows whether other nodes exist) → core
// (directory, pipeline, router) → auth → bootstrap → features (connector, Butler, services) → edges
// (WebSocket, HTTP) → the ports attached to the core → leadership (Butler and the platform connection
// start where this node leads) → MCP (/mcp, which the HTTP app mounts) → listen. Each part adds its
// shutdown steps as it is built; the steps run in SHUTDOWN_ORDER (root/shutdownOrder.ts), on stop and
// when a start fails midway. main.ts runs the hub for real; tests run it in-process on port 0.
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import type { InspectionEvent } from 'xstate';
import type { ConnectionActor } from './actors/connection.js';
import { developmentSecret } from './auth/secrets.js';
import type { Butler } from './butler/index.js';
import { createSystemClock, systemTimers, type Clock, type Timers } from './clock.js';
import type { Config } from './config.js';
import type { Connector } from './connector/index.js';
import type { Pipeline } from './delivery/pipeline.js';
import { listen } from './http/listen.js';
import { createReadGate } from './http/readGate.js';
import type { ServedRoute } from './http/routeTable.js';
import { loadWebFiles } from './http/webFiles.js';
import { createMetrics, type Metrics } from './metrics/registry.js';
import type { Inspection } from './ops/inspection.js';
import { createReadiness } from './ops/readiness.js';
import { startRetention } from './ops/retention.js';
import type { RouterActor } from './actors/router.js';
import { createAuth } from './root/auth.js';
import { createCore } from './root/core.js';
import { createHttpEdge, createHubInspection, createWsEdge } from './root/edges.js';
import { createMcpEdge } from './root/mcp.js';
import { createBootstrap, createButlerFeature, createConnectorFeature, createServices, followLeadership, followRemoteAgents } from './root/features.js';
import { attachNode, createNodePorts, ordersCommitsAcrossNodes, restartedIds } from './root/node.js';
import { DRAIN_TIMEOUT_MS, SHUTDOWN_ORDER, SOCKET_CLOSE_WAIT_MS } from './root/shutdownOrder.js';
import { createRepos, migrateStore, openReads } from './root/storage.js';
import { createShutdown } from './shutdown.js';
import { openStore, type Store } from './store/db.js';
import { watchStoreConnections } from './store/metrics.js';
import { createCorkAnchor } from './ws/corkAnchor.js';
import { startLoopWatch } from './ws/loopWatch.js';
import { createWsMeter } from './ws/metrics.js';
import { STALL_MS } from './ws/open.js';

export interface HubOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /**
   * The timers that matter to tests (authorization expiry, conversation idle, session expiry,
   * retention, the connector's and A2A's retries, MCP's notification window): the process's by
   * default; a test kit passes simulated ones (testing/simulatedTimers.ts) to move time. Without
   * `clock`, stored timestamps then follow their `now()` too.
   */
  timers?: Timers;
  /** scrypt cost; tests lower it to keep the suite fast. */
  passwordCost?: number;
  migrationsDir?: string;
  drainTimeoutMs?: number;
  /**
   * Sees every event and snapshot of the actor system rooted at the router (the router, the
   * connection actors, Butler and its conversations): the test kit's trace. Absent, nothing is attached.
   */
  inspect?: (event: InspectionEvent) => void;
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

export async function startHub(options: HubOptions): Promise<Hub> {
  const { config, logger } = options;
  const startedAt = performance.now();
  const timers = options.timers ?? systemTimers;
  // The default clock reads Date.now itself: nothing in the way when time is the process's.
  const clock = options.clock ?? createSystemClock(options.timers ? () => timers.now() : undefined);
  const jwtSecret = config.auth.jwtSecret ?? developmentSecret(config.dataDir);
  const metrics = createMetrics({ enabled: config.metrics.enabled });
  const wsMeter = createWsMeter(metrics.factory);
  const shutdown = createShutdown({ order: SHUTDOWN_ORDER, logger });
  // Compressing the dashboard's files runs on libuv's thread pool while the store opens and migrates;
  // it is awaited (and its failure thrown) where the app needs it.
  const loadingWeb = loadWebFiles(config.webDir);
  loadingWeb.catch(() => undefined);

  const store = openStore(config.db, { orderedCommits: ordersCommitsAcrossNodes(config), logger });
  shutdown.add('close the store', () => store.close());
  watchStoreConnections(metrics.factory, store);
  const uwsApp = uWS.App();
  shutdown.add('close the uWS app', async () => {
    // uWS flushes a corked response when the current callback returns; close only after that.
    await new Promise((resolve) => setImmediate(resolve));
    uwsApp.close();
  });
  try {
    const migrations = await migrateStore({ store, logger, migrationsDir: options.migrationsDir });
    const reads = openReads({ store, db: config.db, reads: config.reads, logger });
    shutdown.add('close the read side', () => reads.close());
    logger.info({ runsOn: reads.runsOn, timeoutMs: config.reads.timeoutMs, perCaller: config.reads.perCaller }, 'expensive reads run on their own');
    const repos = createRepos({ store, reads });

    // The bus, the leadership, presence and the order of committed batches (root/node.ts).
    const ports = await createNodePorts({ config, repos, clock, logger, metrics, jwtSecret, shutdown });
    const core = createCore({ store, repos, clock, logger, metrics, wsMeter, ports, writeQueueMaxBytes: config.writeQueueMaxBytes, inspect: options.inspect });
    shutdown.add('close sockets with 1001', () => core.router.send({ type: 'SHUTDOWN' }));
    shutdown.add('commit everything queued', () => core.pipeline.drain());
    shutdown.add('stop the router', () => core.router.stop());
    const retentionMs = config.retention.telemetryMs;
    if (retentionMs !== undefined) {
      const retention = startRetention({ store, retentionMs, clock, timers, logger, metrics: metrics.factory });
      shutdown.add('stop pruning telemetry', () => retention.stop());
    }

    const auth = createAuth({
      config,
      store,
      repos,
      clock,
      sessions: core.sessions,
      jwtSecret,
      passwordCost: options.passwordCost,
      redis: ports.redis,
    });

    const connector = createConnectorFeature({ config, store, repos, core, clock, timers, logger, metrics, jwtSecret, ports });
    shutdown.add('stop platform events', () => connector.stop());
    shutdown.add('settle platform events', () => connector.settled());

    const bootstrap = createBootstrap({ config, store, repos, passwords: auth.passwords, clock, logger, sharedPresence: ports.sharedPresence });
    await bootstrap.initialise();
    shutdown.add('record Butler offline', () =>
      bootstrap.presence.hubStopping().catch((err: unknown) => logger.warn({ err }, 'could not record Butler going offline')),
    );

    const butler = await createButlerFeature({ config, repos, core, connector, clock, timers, logger, metrics, ports });
    shutdown.add("end Butler's answers", () => butler.stop());
    followLeadership(ports.leadership, butler, connector);
    const services = createServices({
      store,
      repos,
      core,
      auth,
      connector,
      clock,
      timers,
      logger,
      a2a: config.a2a,
      bus: ports.bus,
      leadership: ports.leadership,
      metrics,
      reinitialise: async () => {
        await bootstrap.initialise();
        // The ids restarted: every node's visibility order starts over.
        restartedIds(ports);
        butler.reset();
        await connector.reload();
      },
    });
    await services.a2aStart();
    followRemoteAgents(ports.leadership, services.a2aRemote, logger);
    shutdown.add('stop remote A2A agents', () => services.a2aRemote.close());
    butler.start();
    services.runtime.start();
    shutdown.add('stop the runtime sampler', () => services.runtime.stop());
    services.online.start();
    shutdown.add('stop the online sampler', () => services.online.stop());

    const anchor = await createCorkAnchor(logger);
    shutdown.add('stop the cork anchor', () => anchor.stop());
    // A hold long enough to matter to a reader's ping is logged.
    const loop = startLoopWatch({ logger, logFromMs: STALL_MS });
    shutdown.add('stop the loop watch', () => loop.stop());
    const ws = createWsEdge({ uwsApp, config, logger, core, auth, butler, anchor, meter: wsMeter, loop, timers });
    shutdown.add('refuse WebSocket upgrades', () => ws.stopAccepting());
    shutdown.add('wait for socket close handshakes', async () => {
      if (!(await ws.closed(SOCKET_CLOSE_WAIT_MS))) logger.warn({ open: ws.connections.size }, 'sockets still open after the close wait; closing anyway');
    });

    const inspection = createHubInspection({ core, ws, butler, connector });
    await attachNode(ports, { core, inspection });
    // Butler and the platform connection run from here where this node leads (a single node does).
    await ports.leadership.start();
    // One per-caller bound on expensive reads for the HTTP routes and the MCP tools together.
    const readGate = createReadGate(config.reads.perCaller);
    const mcp = createMcpEdge({ config, logger, repos, core, services, butler, metrics, readGate, timers });
    shutdown.add('end MCP requests', () => mcp.endpoint.stop());
    const http = createHttpEdge({
      uwsApp,
      config,
      logger,
      web: await loadingWeb,
      services,
      butler,
      metrics,
      readiness: createReadiness({
        store,
        migrations,
        stopping: () => shutdown.begun,
        degraded: () => ports.degraded(),
        logger,
      }),
      inspection,
      startedAt,
      protocols: [mcp.protocol],
      readGate,
    });
    shutdown.add('finish requests in flight', async () => {
      if (!(await http.gate.close(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS))) {
        logger.warn({ inFlight: http.gate.inFlight }, 'requests still in flight after the drain timeout; closing anyway');
      }
    });

    const listener = await listen(http.app, config.server.host, config.server.port);
    shutdown.add('stop accepting connections', () => listener.stopAccepting());

    return {
      port: listener.port,
      store,
      router: core.router,
      pipeline: core.pipeline,
      butler,
      connections: ws.connections,
      connector,
      inFlightRequests: () => http.gate.inFlight,
      get upgradeAnchorReady() {
        return anchor.ready;
      },
      metrics,
      inspection,
      routes: http.routeTable.served,
      stop: () => shutdown.run(),
    };
  } catch (err) {
    // Stops what was built, in the same order as a stop; each step's failure is logged there.
    await shutdown.run().catch(() => undefined);
    throw err;
  }
}
