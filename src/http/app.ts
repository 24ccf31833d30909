// createApp(deps): the HTTP API on a uWS app, through the Express API (ultimate-express).
// It never listens; the hub's server does.
import cors from 'cors';
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import express from 'ultimate-express';
import { Errors } from '../errors.js';
import { createHttpMeter } from './metrics.js';
import type { Metrics } from '../metrics/registry.js';
import { createAccess, type AccessDeps } from './auth.js';
import { jsonBody } from './body.js';
import { createErrorHandler } from './errorHandler.js';
import { buildOpenApiDocument } from './openapi.js';
import type { RequestGate } from './requestGate.js';
import { createReadGate, type ReadGate } from './readGate.js';
import { requestIds } from './requestId.js';
import { requestLog } from './requestLog.js';
import { mount } from './route.js';
import { tagRoute, type RouteTable } from './routeTable.js';
import type { Handler } from './context.js';
import { API_ROUTES, type ApiDeps } from './routes/index.js';
import { webApp } from './webApp.js';
import type { WebBuild } from './webFiles.js';

/**
 * An endpoint that speaks its own protocol over HTTP (MCP): it checks its caller's credential and
 * reads its own body, so it is mounted before the JSON body parser and is not a documented route.
 */
export interface ProtocolEndpoint {
  path: string;
  methods: ReadonlyArray<'get' | 'post' | 'delete'>;
  handler: Handler;
}

export interface AppDeps {
  uwsApp: uWS.TemplatedApp;
  gate: RequestGate;
  logger: Logger;
  isProduction: boolean;
  corsOrigins: readonly string[];
  /** Expensive reads (routes marked heavyRead) one caller may have in progress: READS_PER_CALLER. */
  readsPerCaller: number;
  /** The gate of those reads, when other edges share it (MCP); else one of the app's own. */
  readGate?: ReadGate;
  /**
   * Proxies whose X-Forwarded-For is believed (TRUST_PROXY): addresses, CIDR ranges or
   * loopback/linklocal/uniquelocal, or a number of hops; unset: the socket's address is the client's.
   */
  trustProxy?: readonly string[] | number;
  bodyLimitBytes: number;
  /** A2A_PUBLIC_CARDS: agent cards need no credential. */
  publicCards: boolean;
  /** The built dashboard, served at `/` beside the API, and its pages' Content-Security-Policy. */
  web: WebBuild;
  webCsp: string;
  /** Protocol endpoints (MCP), mounted beside the API. */
  protocols?: readonly ProtocolEndpoint[];
  /** The service methods the routes call (the hub passes its whole services). */
  services: {
    auth: ApiDeps['auth'] & AccessDeps['auth'];
    users: ApiDeps['users'];
    agents: ApiDeps['agents'];
    messages: ApiDeps['messages'];
    devMock: ApiDeps['devMock'];
    chat: ApiDeps['chat'];
    authorizations: ApiDeps['authorizations'];
    connector: ApiDeps['connector'];
    stats: ApiDeps['stats'];
    ops: ApiDeps['ops'];
    accessTokens: ApiDeps['accessTokens'];
    a2aCards: ApiDeps['a2aCards'];
    a2aEndpoint: ApiDeps['a2aEndpoint'];
  };
  /** Probes, metrics, inspection, and the table every route registers through. */
  operations: {
    routeTable: RouteTable;
    metrics: Metrics;
    metricsToken: string | undefined;
    readiness: ApiDeps['readiness'];
    inspection: ApiDeps['inspection'];
    /** performance.now() when the hub started. */
    startedAt: number;
  };
}

/** Probes and scrapes come every few seconds: their request lines are logged at debug. */
const QUIET_PATHS = new Set(['/api/health', '/api/ready', '/metrics']);

export function createApp(deps: AppDeps) {
  const { services, operations } = deps;
  // threads: 0 — no file-serving worker thread: the dashboard's files are served from memory.
  const app = express({ uwsApp: deps.uwsApp, threads: 0 });
  app.set('x-powered-by', false);
  app.set('etag', false);
  // Behind a load balancer every client would share its address (one failed-login budget for all).
  if (deps.trustProxy !== undefined) app.set('trust proxy', typeof deps.trustProxy === 'number' ? deps.trustProxy : [...deps.trustProxy]);
  // Every route passes through the request log and CORS; the declarative fast path would skip them.
  app.set('declarative responses', false);

  app.use(requestIds(deps.logger));
  app.use(requestLog(deps.logger, { quietPaths: QUIET_PATHS, observe: createHttpMeter(operations.metrics.factory, operations.routeTable.patterns) }));
  app.use(deps.gate.middleware);
  app.use(
    cors({
      origin: [...deps.corsOrigins],
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      exposedHeaders: ['X-Total-Count', 'X-Total-Count-Capped', 'Retry-After'],
    }),
  );
  for (const endpoint of deps.protocols ?? []) {
    operations.routeTable.label(endpoint.path);
    const tag: Handler = (_req, res, next) => {
      tagRoute(res, endpoint.path);
      next();
    };
    for (const method of endpoint.methods) app[method](endpoint.path, tag, endpoint.handler);
  }
  app.use(jsonBody(deps.bodyLimitBytes));

  const access = createAccess({ auth: services.auth, isProduction: deps.isProduction, metricsToken: operations.metricsToken, publicCards: deps.publicCards });
  let openapi: object | undefined;
  const handlerDeps: ApiDeps = {
    ...services,
    readiness: operations.readiness,
    inspection: operations.inspection,
    metrics: operations.metrics,
    openapi: () => (openapi ??= buildOpenApiDocument()),
    startedAt: operations.startedAt,
  };
  // Routes register through the table: it records them and tags requests with their pattern.
  mount(operations.routeTable.wrap(app), API_ROUTES, handlerDeps, access, deps.readGate ?? createReadGate(deps.readsPerCaller));
  // After every API route: it answers what they did not, outside /api and /metrics.
  app.use(webApp(deps.web, deps.webCsp));

  app.use((_req, _res, next) => next(Errors.routeNotFound()));
  app.use(createErrorHandler(deps.logger));
  return app;
}
export type HttpApp = ReturnType<typeof createApp>;
