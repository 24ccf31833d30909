// The HTTP app (createApp) over FAKE services and no database: each service method the routes call
// records its arguments and answers with a canned value (or one a test gives), and credentials are
// four fixed tokens. Served on 127.0.0.1:0 over a real uWS app, so tests send real HTTP requests.
import uWS from 'uWebSockets.js';
import { createApp, type AppDeps } from '../../src/http/app.js';
import { listen } from '../../src/http/listen.js';
import { createRequestGate } from '../../src/http/requestGate.js';
import { createRouteTable, type ServedRoute } from '../../src/http/routeTable.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics/registry.js';
import type { UserRow } from '../../src/store/schema.js';
import { apiClient, type ApiClient } from './http.js';

type Services = AppDeps['services'];
type ServiceName = keyof Services;

/** Who the fixed tokens authenticate as. */
function userRow(id: number, username: string, role: string): UserRow {
  const machine = role === 'AGENT' || role === 'BUTLER';
  return {
    id,
    username,
    role,
    actor_type: role === 'BUTLER' ? 'SYSTEM' : 'HUMAN',
    agent_kind: machine ? 'generic' : null,
    runtime_kind: machine ? 'websocket' : null,
    description: null,
    skills: null,
    status: 'OFFLINE',
    online: 0,
    last_seen_at: null,
    last_report: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    presence_seq: 0,
  };
}

export const USERS = {
  admin: userRow(1, 'admin', 'ADMIN'),
  butler: userRow(2, 'Butler', 'BUTLER'),
  member: userRow(3, 'member', 'MEMBER'),
  agent: userRow(4, 'agent-1', 'AGENT'),
} as const;
export type Caller = keyof typeof USERS;
/** The bearer token of each caller. */
export const TOKENS: Record<Caller, string> = { admin: 'admin-token', butler: 'butler-token', member: 'member-token', agent: 'agent-token' };

const page = { items: [{ id: 1 }], total: 1 };

/** What each service method answers unless a test says otherwise; the method names are checked against the services' types. */
const DEFAULT_REPLIES = {
  auth: { login: { token: 'jwt', user: { id: 3 } }, register: { token: 'jwt', user: { id: 5 } } },
  users: { list: page, createHuman: USERS.member, get: { id: 3 }, update: { id: 3 }, deleteHuman: undefined },
  agents: {
    list: page,
    statusList: [],
    counts: { total: 0, online: 0, offline: 0, by_status: [], by_kind: [] },
    butler: { id: 2 },
    register: { id: 4, api_token: 'tok' },
    testConnection: { ok: false },
    rotateToken: { api_token: 'new' },
    delete: undefined,
    rawToken: { api_token: 'raw' },
    updateCard: { id: 4, username: 'agent-1', description: null, skills: [] },
  },
  messages: { list: page, ingest: { id: 7 } },
  devMock: { reset: undefined, insertChat: { id: 9, duplicate: false }, appendConnectorLog: undefined },
  chat: { history: [], listThreads: [], createThread: { id: 1 }, updateThread: { id: 1 }, threadMessages: [], butlerAgentHistory: [] },
  authorizations: { respond: { ok: true }, list: [] },
  connector: {
    current: { id: 0 },
    machine: { states: [] },
    create: { id: 1 },
    update: { id: 1 },
    verify: { ok: true, message: 'verified' },
    testMessage: { ok: true, message: 'sent' },
    setEnabled: { id: 1 },
    logs: { items: [], cursor: '' },
  },
  stats: {
    messageRate: { series: [] },
    reportTallies: { levels: {} },
    reportFields: { series: [] },
    presence: { agents: [] },
    connectorOutcomes: { series: [] },
    runtime: { samples: [] },
    online: { times: [], online: [], registered: [] },
    unanswered: { oldest: null },
  },
  ops: {
    status: { enabled: false },
    listKeys: [],
    createKey: { id: 1 },
    updateKey: { id: 1 },
    deleteKey: undefined,
    listNodes: [],
    createNode: { id: 1 },
    updateNode: { id: 1 },
    deleteNode: undefined,
    testNode: { ok: false },
    listTasks: [],
    recordTask: undefined,
  },
  accessTokens: { list: [], mint: { id: 1, token: 'hubpat_x' }, revoke: undefined },
  a2aCards: { hubCard: { name: 'Butler' }, agentCard: { name: 'agent-1' }, catalogue: [] },
  a2aEndpoint: { call: { kind: 'json', status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } } },
} satisfies { [S in Exclude<ServiceName, 'auth'>]: Record<keyof Services[S], unknown> } & { auth: Partial<Record<keyof Services['auth'], unknown>> };

/** Methods the routes call without awaiting: their fakes answer at once. */
const SYNC_METHODS = new Set(['connector.machine', 'stats.runtime']);

export interface Call {
  /** `service.method`, e.g. `agents.list`. */
  name: string;
  args: unknown[];
}

export interface FakeAppOptions {
  isProduction?: boolean;
  metricsEnabled?: boolean;
  metricsToken?: string;
  bodyLimitBytes?: number;
  /** READS_PER_CALLER of the app (default 2). */
  readsPerCaller?: number;
  /** A2A_PUBLIC_CARDS (default false). */
  publicCards?: boolean;
}

export interface FakeApp {
  url: string;
  api: ApiClient;
  /** Every service call, in order. */
  calls: Call[];
  /** The calls of one method (`agents.list`). */
  callsOf(name: string): unknown[][];
  /** Makes a method answer with this function's result (or throw its error) until `reset()`. */
  reply(name: string, answer: (...args: unknown[]) => unknown): void;
  /** Forgets the calls and the replies set by tests. */
  reset(): void;
  routes: readonly ServedRoute[];
  stop(): void;
}

export async function startFakeApp(options: FakeAppOptions = {}): Promise<FakeApp> {
  const calls: Call[] = [];
  const replies = new Map<string, (...args: unknown[]) => unknown>();

  function method(name: string, fallback: unknown) {
    return (...args: unknown[]) => {
      calls.push({ name, args });
      const custom = replies.get(name);
      if (SYNC_METHODS.has(name)) return custom ? custom(...args) : fallback;
      return Promise.resolve().then(() => (custom ? custom(...args) : fallback));
    };
  }
  const services = Object.fromEntries(
    Object.entries(DEFAULT_REPLIES).map(([service, methods]) => [
      service,
      Object.fromEntries(Object.entries(methods).map(([name, fallback]) => [name, method(`${service}.${name}`, fallback)])),
    ]),
  ) as unknown as Services;
  const byToken = new Map(Object.entries(TOKENS).map(([caller, token]) => [token, USERS[caller as Caller]]));
  services.auth = {
    ...services.auth,
    selfRegistration: true,
    agentReplyTimeoutSeconds: 60,
    authenticate: (token: string) => Promise.resolve(byToken.get(token)),
  };

  const routeTable = createRouteTable();
  const uwsApp = uWS.App();
  const app = createApp({
    uwsApp,
    gate: createRequestGate(),
    logger: createLogger('silent'),
    isProduction: options.isProduction ?? false,
    corsOrigins: ['http://localhost:5173'],
    readsPerCaller: options.readsPerCaller ?? 2,
    bodyLimitBytes: options.bodyLimitBytes ?? 64 * 1024,
    publicCards: options.publicCards ?? false,
    web: { state: 'off' },
    webCsp: "default-src 'self'",
    services,
    operations: {
      routeTable,
      metrics: createMetrics({ enabled: options.metricsEnabled ?? false }),
      metricsToken: options.metricsToken,
      readiness: { check: () => Promise.resolve({ ready: true }) },
      inspection: {
        summary: (query) => {
          calls.push({ name: 'inspection.summary', args: [query] });
          return { router: {} };
        },
        snapshot: (id) => {
          calls.push({ name: 'inspection.snapshot', args: [id] });
          return id === 'router' ? { id: 'router', kind: 'router', state: 'running', status: 'active', context: {} } : undefined;
        },
      },
      startedAt: performance.now(),
    },
  });
  const listener = await listen(app, '127.0.0.1', 0);
  const url = `http://127.0.0.1:${listener.port}`;
  return {
    url,
    api: apiClient(url),
    calls,
    callsOf: (name) => calls.filter((c) => c.name === name).map((c) => c.args),
    reply: (name, answer) => void replies.set(name, answer),
    reset() {
      calls.length = 0;
      replies.clear();
    },
    routes: routeTable.served,
    stop() {
      listener.stopAccepting();
      uwsApp.close();
    },
  };
}
