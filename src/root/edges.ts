// The edge stage: the WebSocket edge and the HTTP app on the one uWS app, and the live actor
// system as inspection shows it.
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import type { Butler } from '../butler/index.js';
import { butlerSource } from '../butler/inspection.js';
import type { Config } from '../config.js';
import type { Connector } from '../connector/index.js';
import { connectorSource } from '../connector/inspection.js';
import { createApp, type ProtocolEndpoint } from '../http/app.js';
import { createRequestGate } from '../http/requestGate.js';
import { createRouteTable } from '../http/routeTable.js';
import type { ReadGate } from '../http/readGate.js';
import type { WebBuild } from '../http/webFiles.js';
import type { Metrics } from '../metrics/registry.js';
import { createInspection } from '../ops/inspection.js';
import { connectionsSource, routerSource } from '../ops/inspectionSources.js';
import type { ReadinessCheck } from '../ops/readiness.js';
import type { CorkAnchor } from '../ws/corkAnchor.js';
import type { LoopWatch } from '../ws/loopWatch.js';
import { attachWebSocket, type WsEdge } from '../ws/edge.js';
import type { WsMeter } from '../ws/metrics.js';
import type { Auth } from './auth.js';
import type { Core } from './core.js';
import type { Services } from './features.js';
import type { Timers } from '../clock.js';

export interface WsEdgeOptions {
  uwsApp: uWS.TemplatedApp;
  config: Config;
  logger: Logger;
  core: Core;
  auth: Auth;
  butler: Butler;
  anchor: CorkAnchor;
  meter: WsMeter;
  loop: LoopWatch;
  timers: Timers;
}

export function createWsEdge(options: WsEdgeOptions): WsEdge {
  const { core, auth, butler } = options;
  return attachWebSocket({
    uwsApp: options.uwsApp,
    limits: options.config.ws,
    logger: options.logger,
    router: core.router,
    pipeline: core.pipeline,
    sendBatch: core.sendBatch,
    anchor: options.anchor,
    authenticate: (credential) => auth.service.session(credential),
    admission: core.admission,
    replay: core.replay,
    authResponse: async (user, payload) => {
      await butler.authorizations.respond(user, payload);
    },
    meter: options.meter,
    loop: options.loop,
    timers: options.timers,
  });
}

/** The actors GET /api/admin/actors shows: the router, the connections, Butler, the connector. */
export function createHubInspection(options: { core: Core; ws: WsEdge; butler: Butler; connector: Connector }) {
  const inspection = createInspection();
  inspection.add(routerSource(options.core.router));
  inspection.add(connectionsSource(options.ws.connections));
  inspection.add(butlerSource(options.butler.actor, options.butler.relay));
  inspection.add(connectorSource(options.connector));
  return inspection;
}

export interface HttpEdgeOptions {
  uwsApp: uWS.TemplatedApp;
  config: Config;
  logger: Logger;
  web: WebBuild;
  services: Services;
  butler: Butler;
  metrics: Metrics;
  readiness: ReadinessCheck;
  inspection: ReturnType<typeof createHubInspection>;
  /** performance.now() when the hub started. */
  startedAt: number;
  /** Protocol endpoints served beside the API (MCP). */
  protocols?: readonly ProtocolEndpoint[];
  /** The per-caller gate of expensive reads, shared with the protocol endpoints. */
  readGate?: ReadGate;
}

/** The HTTP app, the gate that counts its requests in flight, and the table of its routes. */
export function createHttpEdge(options: HttpEdgeOptions) {
  const { config, logger } = options;
  logWebBuild(logger, options.web);
  const routeTable = createRouteTable();
  const gate = createRequestGate();
  const app = createApp({
    uwsApp: options.uwsApp,
    gate,
    logger,
    isProduction: config.isProduction,
    corsOrigins: config.http.corsOrigins,
    readsPerCaller: config.reads.perCaller,
    trustProxy: config.http.trustProxy,
    bodyLimitBytes: config.http.bodyLimitBytes,
    publicCards: config.a2a.publicCards,
    web: options.web,
    webCsp: config.webCsp,
    protocols: options.protocols,
    readGate: options.readGate,
    services: { ...options.services, authorizations: options.butler.authorizations },
    operations: {
      routeTable,
      metrics: options.metrics,
      metricsToken: config.metrics.token,
      readiness: options.readiness,
      inspection: options.inspection,
      startedAt: options.startedAt,
    },
  });
  return { app, gate, routeTable };
}

function logWebBuild(logger: Logger, web: WebBuild): void {
  if (web.state === 'loaded') logger.info({ dir: web.dir, files: web.files.size, bytes: web.bytes }, 'dashboard loaded');
  else if (web.state === 'missing')
    logger.warn({ dir: web.dir }, `no dashboard in ${web.dir} (no index.html): run \`npm run build\` to build it; / answers 404 until then`);
  else logger.info('WEB_DIR is empty: this hub serves no dashboard');
}
