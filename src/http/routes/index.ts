// Every API route, in the order they are mounted (agents before /api/users/:id) and documented.
import type { Route } from '../route.js';
import { a2aCardRoutes, type A2aCardDeps } from './a2a.js';
import { accessTokenRoutes, type AccessTokenDeps } from './accessTokens.js';
import { agentRoutes, type AgentDeps } from './agents.js';
import { authRoutes, type AuthDeps } from './auth.js';
import { chatRoutes, type ChatDeps } from './chat.js';
import { connectorRoutes, type ConnectorDeps } from './connector.js';
import { devMockRoutes, type DevMockDeps } from './devMock.js';
import { messageRoutes, type MessageDeps } from './messages.js';
import { opsRoutes, type OpsDeps } from './ops.js';
import { statsRoutes, type StatsDeps } from './stats.js';
import { systemRoutes, type SystemDeps } from './system.js';
import { actorRoutes, type ActorDeps } from './systemActors.js';
import { metricsRoutes, type MetricsDeps } from './systemMetrics.js';
import { userRoutes, type UserDeps } from './users.js';

/** What the handlers are given: the service methods they call, and the operations parts. */
export type ApiDeps = SystemDeps &
  MetricsDeps &
  AuthDeps &
  AgentDeps &
  UserDeps &
  MessageDeps &
  ChatDeps &
  ConnectorDeps &
  ActorDeps &
  DevMockDeps &
  StatsDeps &
  OpsDeps &
  AccessTokenDeps &
  A2aCardDeps;

export const API_ROUTES: readonly Route<ApiDeps>[] = [
  ...systemRoutes,
  ...metricsRoutes,
  ...authRoutes,
  ...accessTokenRoutes,
  ...agentRoutes,
  ...opsRoutes,
  ...userRoutes,
  ...messageRoutes,
  ...chatRoutes,
  ...connectorRoutes,
  ...actorRoutes,
  ...devMockRoutes,
  ...statsRoutes,
  ...a2aCardRoutes,
];
