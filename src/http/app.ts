// createApp(deps): the HTTP API on a uWS app, through the Express API (ultimate-express).
// It never listens; the hub's server does.
import cors from 'cors';
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import express from 'ultimate-express';
import type { Authorizations } from '../butler/authorizations.js';
import { Errors } from '../errors.js';
import { createHttpMeter } from './metrics.js';
import type { Metrics } from '../metrics/registry.js';
import type { AgentsService } from '../services/agents.js';
import type { AuthService } from '../auth/service.js';
import type { ChatService } from '../services/chat.js';
import type { ConnectorService } from '../connector/service.js';
import type { DevMockService } from '../services/devMock.js';
import type { Inspection } from '../ops/inspection.js';
import type { MessagesService } from '../services/messages.js';
import type { ReadinessCheck } from '../ops/readiness.js';
import type { UsersService } from '../services/users.js';
import { createAccess } from './auth.js';
import { jsonBody } from './body.js';
import { createErrorHandler } from './errorHandler.js';
import { buildOpenApiDocument } from './openapi.js';
import type { RequestGate } from './requestGate.js';
import { requestIds } from './requestId.js';
import { requestLog } from './requestLog.js';
import type { RouteTable } from './routeTable.js';
import { agentRoutes } from './routes/agents.js';
import { authRoutes } from './routes/auth.js';
import { chatRoutes } from './routes/chat.js';
import { connectorRoutes } from './routes/connector.js';
import { devMockRoutes } from './routes/devMock.js';
import { messageRoutes } from './routes/messages.js';
import { opsRoutes } from './routes/ops.js';
import { systemRoutes } from './routes/system.js';
import { actorRoutes } from './routes/systemActors.js';
import { metricsRoutes } from './routes/systemMetrics.js';
import { userRoutes } from './routes/users.js';
import { webApp } from './webApp.js';
import type { WebBuild } from './webFiles.js';

export interface AppDeps {
  uwsApp: uWS.TemplatedApp;
  gate: RequestGate;
  logger: Logger;
  isProduction: boolean;
  corsOrigins: readonly string[];
  bodyLimitBytes: number;
  /** The built dashboard, served at `/` beside the API, and its pages' Content-Security-Policy. */
  web: WebBuild;
  webCsp: string;
  services: {
    auth: AuthService;
    users: UsersService;
    agents: AgentsService;
    messages: MessagesService;
    devMock: DevMockService;
    chat: ChatService;
    authorizations: Authorizations;
    connector: ConnectorService;
  };
  /** Probes, metrics, inspection, and the table every route registers through. */
  operations: {
    routeTable: RouteTable;
    metrics: Metrics;
    metricsToken: string | undefined;
    readiness: ReadinessCheck;
    inspection: Inspection;
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
      exposedHeaders: ['X-Total-Count'],
    }),
  );
  app.use(jsonBody(deps.bodyLimitBytes));

  const access = createAccess(services.auth, deps.isProduction);
  // Routes register through the table: it records them and tags requests with their pattern.
  const routes = operations.routeTable.wrap(app);
  let openapi: object | undefined;
  systemRoutes(routes, { readiness: operations.readiness, openapi: () => (openapi ??= buildOpenApiDocument()), startedAt: operations.startedAt });
  metricsRoutes(routes, { metrics: operations.metrics, token: operations.metricsToken });
  authRoutes(routes, { auth: services.auth });
  agentRoutes(routes, { access, agents: services.agents });
  opsRoutes(routes, { access });
  userRoutes(routes, { access, users: services.users });
  messageRoutes(routes, { access, messages: services.messages });
  chatRoutes(routes, { access, chat: services.chat, authorizations: services.authorizations });
  connectorRoutes(routes, { access, connector: services.connector });
  actorRoutes(routes, { access, inspection: operations.inspection });
  devMockRoutes(routes, { access, devMock: services.devMock, agents: services.agents });
  // After every API route: it answers what they did not, outside /api and /metrics.
  app.use(webApp(deps.web, deps.webCsp));

  app.use((_req, _res, next) => next(Errors.routeNotFound()));
  app.use(createErrorHandler(deps.logger));
  return app;
}
export type HttpApp = ReturnType<typeof createApp>;
