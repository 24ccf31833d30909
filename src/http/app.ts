// createApp(deps): the HTTP API on a uWS app, through the Express API (ultimate-express).
// It never listens; the hub's server does.
import cors from 'cors';
import type { Logger } from 'pino';
import type uWS from 'uWebSockets.js';
import express from 'ultimate-express';
import { Errors } from '../errors.js';
import type { AgentsService } from '../services/agents.js';
import type { AuthService } from '../services/auth.js';
import type { Authorizations } from '../services/butler/authorizations.js';
import type { ChatService } from '../services/chat.js';
import type { ConnectorService } from '../services/connector/service.js';
import type { DevMockService } from '../services/devMock.js';
import type { MessagesService } from '../services/messages.js';
import type { UsersService } from '../services/users.js';
import { createAccess } from './auth.js';
import { jsonBody } from './body.js';
import { createErrorHandler } from './errorHandler.js';
import type { RequestGate } from './requestGate.js';
import { requestLog } from './requestLog.js';
import { agentRoutes } from './routes/agents.js';
import { authRoutes } from './routes/auth.js';
import { chatRoutes } from './routes/chat.js';
import { connectorRoutes } from './routes/connector.js';
import { devMockRoutes } from './routes/devMock.js';
import { messageRoutes } from './routes/messages.js';
import { systemRoutes } from './routes/system.js';
import { userRoutes } from './routes/users.js';

export interface AppDeps {
  uwsApp: uWS.TemplatedApp;
  gate: RequestGate;
  logger: Logger;
  isProduction: boolean;
  corsOrigins: readonly string[];
  bodyLimitBytes: number;
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
}

export function createApp(deps: AppDeps) {
  const { services } = deps;
  // threads: 0 — no file-serving worker thread; the API serves JSON only.
  const app = express({ uwsApp: deps.uwsApp, threads: 0 });
  app.set('x-powered-by', false);
  app.set('etag', false);
  // Every route passes through the request log and CORS; the declarative fast path would skip them.
  app.set('declarative responses', false);

  app.use(requestLog(deps.logger));
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
  systemRoutes(app);
  authRoutes(app, { auth: services.auth });
  agentRoutes(app, { access, agents: services.agents });
  userRoutes(app, { access, users: services.users });
  messageRoutes(app, { access, messages: services.messages });
  chatRoutes(app, { access, chat: services.chat, authorizations: services.authorizations });
  connectorRoutes(app, { access, connector: services.connector });
  devMockRoutes(app, { access, devMock: services.devMock, agents: services.agents });

  app.use((_req, _res, next) => next(Errors.routeNotFound()));
  app.use(createErrorHandler(deps.logger));
  return app;
}
export type HttpApp = ReturnType<typeof createApp>;
