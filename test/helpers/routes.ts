// Every route the HTTP API serves, with its access level, written out apart from the route objects so
// the walks check them: the whole-hub suites walk parts of it, and test/unit/http/access.test.ts walks
// all of it (every route × anonymous, member, agent, Butler, admin) over the app with fake services.
// 'human': any authenticated human (ADMIN or MEMBER); machines get 403.
export type Access = 'public' | 'authenticated' | 'human' | 'admin' | 'admin-non-production' | 'cards';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  access: Access;
  /** The 403 text a machine gets from a 'human' route, when it is not the threads' one. */
  machineRefusal?: string;
}

export const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/ping', access: 'public' },
  { method: 'GET', path: '/api/health', access: 'public' },
  { method: 'GET', path: '/api/ready', access: 'public' },
  { method: 'GET', path: '/api/openapi.json', access: 'public' },
  { method: 'GET', path: '/api/auth/options', access: 'public' },
  { method: 'POST', path: '/api/auth/login', access: 'public' },
  { method: 'POST', path: '/api/auth/register', access: 'public' },
  // WebSocket upgrade (credential in the query); a plain HTTP GET gets 426.
  { method: 'GET', path: '/api/ws', access: 'public' },
  { method: 'GET', path: '/api/messages', access: 'authenticated' },
  { method: 'POST', path: '/api/messages', access: 'authenticated' },
  { method: 'GET', path: '/api/users/agents', access: 'authenticated' },
  { method: 'GET', path: '/api/users/agents/counts', access: 'authenticated' },
  { method: 'GET', path: '/api/users/agents/status', access: 'authenticated' },
  { method: 'GET', path: '/api/users/butler', access: 'authenticated' },
  { method: 'GET', path: '/api/users/:id', access: 'authenticated' },
  { method: 'GET', path: '/api/chat/history/:peer_id', access: 'authenticated' },
  { method: 'GET', path: '/api/users', access: 'admin' },
  { method: 'POST', path: '/api/users', access: 'admin' },
  { method: 'PATCH', path: '/api/users/:id', access: 'admin' },
  { method: 'DELETE', path: '/api/users/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/agents', access: 'admin' },
  { method: 'DELETE', path: '/api/users/agents/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/agents/test-connection', access: 'admin' },
  { method: 'PATCH', path: '/api/users/agents/:id/token', access: 'admin' },
  { method: 'GET', path: '/api/admin/actors', access: 'admin' },
  { method: 'GET', path: '/api/admin/actors/:actor_id', access: 'admin' },
  { method: 'POST', path: '/api/dev/mock/reset', access: 'admin-non-production' },
  { method: 'POST', path: '/api/dev/mock/chat', access: 'admin-non-production' },
  { method: 'POST', path: '/api/dev/mock/feishu-log', access: 'admin-non-production' },
  { method: 'POST', path: '/api/dev/mock/ops-task', access: 'admin-non-production' },
  { method: 'GET', path: '/api/dev/mock/agent-token/:username', access: 'admin-non-production' },
];

/**
 * Routes the access matrix in access.test.ts cannot walk as it stands: it has no 'human' level, and its
 * production check wants every admin GET to answer 200 on a fresh hub, where no agent exists for
 * butler-agent to name. test/integration/chat.test.ts walks these; move them into ROUTES once
 * access.test.ts knows 'human' and can create an agent in its production hub.
 */
export const CHAT_ACCESS_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/chat/threads', access: 'human' },
  { method: 'POST', path: '/api/chat/threads', access: 'human' },
  { method: 'PATCH', path: '/api/chat/threads/:id', access: 'human' },
  { method: 'GET', path: '/api/chat/threads/:id/messages', access: 'human' },
  { method: 'GET', path: '/api/chat/butler-agent/:agent_id', access: 'admin' },
  { method: 'POST', path: '/api/chat/auth/response', access: 'human', machineRefusal: 'only human users answer authorization requests' },
  { method: 'GET', path: '/api/chat/auth/requests', access: 'human', machineRefusal: 'only human users answer authorization requests' },
];

/** Personal access tokens (for MCP clients); test/integration/accessTokens.test.ts walks what they do. */
export const ACCESS_TOKEN_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/auth/access-tokens', access: 'human', machineRefusal: 'access tokens are for human users: agents have their api_token' },
  { method: 'POST', path: '/api/auth/access-tokens', access: 'human', machineRefusal: 'access tokens are for human users: agents have their api_token' },
  { method: 'DELETE', path: '/api/auth/access-tokens/:id', access: 'human', machineRefusal: 'access tokens are for human users: agents have their api_token' },
];

/**
 * A concrete path for a pattern; ids point at the bootstrap admin (1) and Butler (2), so refusals are
 * about access only. `agentId` and `agentName` stand in for `:agent_id` and `:username` where a real
 * agent is needed; `:actor_id` is the router, the one actor every hub has.
 */
export function concrete(path: string, agentId = 1, agentName = 'Butler'): string {
  return path.replace(':id', '1').replace(':username', agentName).replace(':peer_id', '2').replace(':agent_id', String(agentId)).replace(':actor_id', 'router');
}

/**
 * The chat-platform connector (admin only), under both of its prefixes. Walked by
 * test/integration/connector.test.ts, which creates the connector the :id routes need (the access
 * matrix's production check wants every admin GET to answer 200 on a fresh hub, where no connector
 * exists for /logs to read).
 */
export const CONNECTOR_ROUTES: readonly RouteSpec[] = ['/api/integrations/chatplatform', '/api/integrations/feishu'].flatMap((base): RouteSpec[] => [
  { method: 'GET', path: base, access: 'admin' },
  { method: 'GET', path: `${base}/machine`, access: 'admin' },
  { method: 'POST', path: base, access: 'admin' },
  { method: 'PATCH', path: `${base}/:id`, access: 'admin' },
  { method: 'POST', path: `${base}/:id/verify-callback`, access: 'admin' },
  { method: 'POST', path: `${base}/:id/test-message`, access: 'admin' },
  { method: 'PATCH', path: `${base}/:id/enable`, access: 'admin' },
  { method: 'GET', path: `${base}/:id/logs`, access: 'admin' },
]);

/**
 * The older dashboards' ops panels (admin only): the SSH-key and node inventory, task records, and
 * the status saying no executor runs here. test/integration/olderDashboards.test.ts walks their
 * access levels over a whole hub, and test/unit/http/access.test.ts over fake services.
 */
export const OPS_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/users/ops/status', access: 'admin' },
  { method: 'GET', path: '/api/users/ops/tasks', access: 'admin' },
  { method: 'GET', path: '/api/users/ops/ssh-keys', access: 'admin' },
  { method: 'GET', path: '/api/users/ops/nodes', access: 'admin' },
  { method: 'POST', path: '/api/users/ops/ssh-keys', access: 'admin' },
  { method: 'PATCH', path: '/api/users/ops/ssh-keys/:id', access: 'admin' },
  { method: 'DELETE', path: '/api/users/ops/ssh-keys/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/ops/nodes', access: 'admin' },
  { method: 'PATCH', path: '/api/users/ops/nodes/:id', access: 'admin' },
  { method: 'DELETE', path: '/api/users/ops/nodes/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/ops/nodes/:id/test', access: 'admin' },
];

/**
 * The dashboard's chart series (read-only). Walked by test/unit/http/access.test.ts over fake
 * services and by test/integration/stats.test.ts over a whole hub (which has the 'human' level).
 */
export const STATS_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/stats/messages', access: 'authenticated' },
  { method: 'GET', path: '/api/stats/reports', access: 'authenticated' },
  { method: 'GET', path: '/api/stats/report-fields', access: 'authenticated' },
  { method: 'GET', path: '/api/stats/presence', access: 'authenticated' },
  { method: 'GET', path: '/api/stats/connector', access: 'admin' },
  { method: 'GET', path: '/api/stats/runtime', access: 'admin' },
  { method: 'GET', path: '/api/stats/online', access: 'authenticated' },
  { method: 'GET', path: '/api/stats/unanswered', access: 'human', machineRefusal: 'only human users have conversations waiting for an answer' },
];

/**
 * The A2A routes (src/a2a/). 'cards': any authenticated user, or anyone when A2A_PUBLIC_CARDS=true.
 * Walked by test/unit/http/access.test.ts; test/integration/a2a*.test.ts covers them against a real hub.
 */
export const A2A_ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/.well-known/agent-card.json', access: 'cards' },
  { method: 'GET', path: '/a2a/agents/:username/.well-known/agent-card.json', access: 'cards' },
  { method: 'POST', path: '/a2a/agents/:username', access: 'authenticated' },
  { method: 'GET', path: '/a2a/agents', access: 'authenticated' },
  { method: 'PATCH', path: '/api/users/agents/:id/card', access: 'admin' },
];
