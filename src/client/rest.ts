// A small typed helper for the hub's HTTP API (wire.md §3): one function per endpoint, bodies typed
// by the hub's own zod schemas, answers by its wire objects. Errors come back as HubRequestError with
// the status and the hub's `{"error"}` text, or, when something in front of the hub answered (a
// balancer's HTML 503), a line saying so. Uses the standard fetch (browsers, Node 18+).
import type * as z from 'zod';
import type { AccessTokenView, mintedAccessToken } from '../protocol/accessTokens.js';
import type { authorizationView, authResponseResult, AuthRequestsQuery } from '../protocol/butler.js';
import type { createThreadBody, updateThreadBody } from '../protocol/chat.js';
import type { ConnectorAction, connectorFieldsBody, ConnectorLogView, ConnectorView, MachineDescription, testMessageBody } from '../protocol/connector.js';
import type {
  createUserBody,
  legacyMessageBody,
  listAgentsQuery,
  listMessagesQuery,
  listUsersQuery,
  mockChatBody,
  registerAgentBody,
  typedMessageBody,
  updateUserBody,
} from '../protocol/http.js';
import type { ReportType } from '../protocol/messages.js';
import type { ChatMessageView, MessageView, PresenceView, ThreadView, UserView } from '../protocol/objects.js';
import type {
  AgentCounts,
  CountSeries,
  messageRateQuery,
  OnlineSeries,
  PresenceStrips,
  ReportFields,
  ReportTallies,
  RuntimeSamples,
  UnansweredSummary,
} from '../protocol/stats.js';
import { describeAnswer, hubErrorOf, type HttpAnswer } from './answers.js';
import { httpBase } from './transport.js';
import { unreachable } from './unreachable.js';

export class HubRequestError extends Error {
  /** Who answered: the hub's error text (`hubError`), or no hub text and the Server header, if any. */
  readonly answer: HttpAnswer;
  constructor(
    readonly status: number,
    message: string,
    readonly method: string,
    readonly path: string,
    answer: Omit<HttpAnswer, 'status'> = { hubError: message },
  ) {
    super(message);
    this.name = 'HubRequestError';
    this.answer = { status, ...answer };
  }

  /** The hub wrote the answer (its `{"error"}` shape), rather than a proxy or balancer in front of it. */
  get fromHub(): boolean {
    return this.answer.hubError !== undefined;
  }
}

type Query = Record<string, string | number | boolean | undefined>;
type QueryOf<S extends z.ZodType> = Partial<Record<keyof z.input<S>, string | number | boolean>>;

export interface RestOptions {
  url: string;
  /** Bearer credential: a JWT or an agent's api_token; a function is asked on every request. */
  token?: string | (() => string | Promise<string>);
  fetch?: typeof fetch;
}

export interface Page<T> {
  items: T[];
  /** X-Total-Count when the hub sends it, else the number of items. */
  total: number;
  /** X-Total-Count-Capped: the hub stopped counting at `total` and more match (GET /api/messages counts up to 10,000). */
  capped?: boolean;
}

/** A registered agent: its api_token shown this once, or the card URL of a remote A2A agent (which has none). */
export type AgentCreated = UserView & { api_token?: string; card_url?: string };
export interface TokenRotated {
  ok: true;
  message: string;
  agent_id: number;
  api_token: string;
  token_hint: string;
}
export interface ConnectionCheck {
  ok: boolean;
  message: string;
  agent_id?: number;
  agent_name?: string;
}

export type AuthorizationView = z.output<typeof authorizationView>;
export type AuthResponseResult = z.output<typeof authResponseResult>;
export interface ConnectorOutcome {
  ok: boolean;
  message: string;
  detail?: string;
  trace_id?: string;
  /** A test message the platform accepted: its id there. */
  platform_message_id?: string;
  verified_at?: string;
  connector?: ConnectorView;
}
export type { ConnectorAction, ConnectorLogView, ConnectorView, MachineDescription };
/** One actor as `GET /api/admin/actors/:actor_id` shows it. */
export interface ActorSnapshot {
  id: string;
  kind: string;
  state: string;
  status: string;
  context: Record<string, unknown>;
}

/** `GET /api/stats/messages`: the window, its buckets and the feed's filters. */
export type StatsMessagesQuery = QueryOf<typeof messageRateQuery>;

/** The chat-platform connector's routes (admins). */
const CONNECTOR = '/api/integrations/chatplatform';

export function createRestClient(options: RestOptions) {
  const base = httpBase(options.url);
  const doFetch = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));

  async function call(
    method: string,
    path: string,
    init: { body?: unknown; query?: Query; token?: string } = {},
  ): Promise<{ body: unknown; headers: Headers }> {
    const url = new URL(base + path);
    for (const [key, value] of Object.entries(init.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { Accept: 'application/json' };
    const token = init.token ?? (typeof options.token === 'function' ? await options.token() : options.token);
    if (token) headers['Authorization'] = `Bearer ${token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(url, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    } catch (err) {
      // No answer at all: say where and why (fetch says only "fetch failed"); an abort stays an abort.
      throw err instanceof TypeError ? unreachable('hub', url, err) : err;
    }
    const text = await res.text();
    if (!res.ok) {
      const hubError = hubErrorOf(text);
      const server = res.headers.get('server') ?? undefined;
      // Not the hub's shape: say who answered (a balancer's page), not that the text is not JSON.
      const message = hubError ?? `${method} ${path}: ${describeAnswer({ status: res.status, server })}`;
      throw new HubRequestError(res.status, message, method, path, { hubError, server });
    }
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new HubRequestError(res.status, `${method} ${path} answered ${res.status} with text that is not JSON`, method, path, {});
    }
    return { body, headers: res.headers };
  }

  async function json<T>(method: string, path: string, init?: { body?: unknown; query?: Query; token?: string }): Promise<T> {
    return (await call(method, path, init)).body as T;
  }

  async function page<T>(path: string, query?: Query): Promise<Page<T>> {
    const { body, headers } = await call('GET', path, { query });
    const items = Array.isArray(body) ? (body as T[]) : [];
    const total = Number(headers.get('x-total-count') ?? items.length);
    return { items, total, capped: headers.get('x-total-count-capped') === 'true' };
  }

  return {
    /** Any endpoint, for what has no helper yet. */
    request: json,
    ping: () => json<{ message: string }>('GET', '/api/ping'),
    authOptions: () => json<{ self_registration: boolean; agent_reply_timeout_seconds?: number }>('GET', '/api/auth/options', { token: '' }),
    login: (username: string, password: string) =>
      json<{ token: string; user: UserView }>('POST', '/api/auth/login', { body: { username, password }, token: '' }),
    register: (username: string, password: string) =>
      json<{ token: string; user: UserView }>('POST', '/api/auth/register', { body: { username, password }, token: '' }),

    messages: {
      list: (query: QueryOf<typeof listMessagesQuery> = {}) => page<MessageView>('/api/messages', query),
      post: (body: z.input<typeof typedMessageBody> | z.input<typeof legacyMessageBody>) => json<MessageView>('POST', '/api/messages', { body }),
    },
    users: {
      list: (query: QueryOf<typeof listUsersQuery> = {}) => page<UserView>('/api/users', query),
      get: (id: number) => json<UserView>('GET', `/api/users/${id}`),
      create: (body: z.input<typeof createUserBody>) => json<UserView>('POST', '/api/users', { body }),
      update: (id: number, body: z.input<typeof updateUserBody>) => json<UserView>('PATCH', `/api/users/${id}`, { body }),
      remove: (id: number) => json<unknown>('DELETE', `/api/users/${id}`),
    },
    agents: {
      list: (query: QueryOf<typeof listAgentsQuery> = {}) => page<UserView>('/api/users/agents', query),
      status: () => json<PresenceView[]>('GET', '/api/users/agents/status'),
      /** Agents counted by presence and kind (Butler not counted). */
      counts: () => json<AgentCounts>('GET', '/api/users/agents/counts'),
      butler: () => json<UserView>('GET', '/api/users/butler'),
      register: (body: z.input<typeof registerAgentBody>) => json<AgentCreated>('POST', '/api/users/agents', { body }),
      remove: (id: number) => json<unknown>('DELETE', `/api/users/agents/${id}`),
      testConnection: (api_token: string) => json<ConnectionCheck>('POST', '/api/users/agents/test-connection', { body: { api_token } }),
      rotateToken: (id: number, api_token?: string) =>
        json<TokenRotated>('PATCH', `/api/users/agents/${id}/token`, { body: api_token === undefined ? {} : { api_token } }),
    },
    chat: {
      history: (peerId: number, query: { limit?: number; before_id?: number } = {}) => json<ChatMessageView[]>('GET', `/api/chat/history/${peerId}`, { query }),
      threads: (query: { peer_id?: number; channel_kind?: string; include_archived?: boolean } = {}) =>
        json<ThreadView[]>('GET', '/api/chat/threads', { query }),
      createThread: (body: z.input<typeof createThreadBody>) => json<ThreadView>('POST', '/api/chat/threads', { body }),
      updateThread: (id: number, body: z.input<typeof updateThreadBody>) => json<ThreadView>('PATCH', `/api/chat/threads/${id}`, { body }),
      threadMessages: (id: number, query: { limit?: number; before_id?: number } = {}) =>
        json<ChatMessageView[]>('GET', `/api/chat/threads/${id}/messages`, { query }),
      butlerAgent: (agentId: number, query: { limit?: number; before_id?: number } = {}) =>
        json<ChatMessageView[]>('GET', `/api/chat/butler-agent/${agentId}`, { query }),
      authRequests: (query: Partial<Pick<AuthRequestsQuery, 'status' | 'limit' | 'before' | 'before_action_id'>> = {}) =>
        json<AuthorizationView[]>('GET', '/api/chat/auth/requests', { query }),
      authRespond: (action_id: string, approved: boolean, note?: string) =>
        json<AuthResponseResult>('POST', '/api/chat/auth/response', { body: note === undefined ? { action_id, approved } : { action_id, approved, note } }),
    },
    connector: {
      /** The current connector, or the defaults with id 0 when none was created. */
      get: () => json<ConnectorView>('GET', CONNECTOR),
      machine: () => json<MachineDescription>('GET', `${CONNECTOR}/machine`),
      create: (body: z.input<typeof connectorFieldsBody>) => json<ConnectorView>('POST', CONNECTOR, { body }),
      /** With `version` (the copy the change was made from), a connector changed since answers 409. */
      update: (id: number, body: z.input<typeof connectorFieldsBody> & { version?: number }) => json<ConnectorView>('PATCH', `${CONNECTOR}/${id}`, { body }),
      verify: (id: number) => json<ConnectorOutcome>('POST', `${CONNECTOR}/${id}/verify-callback`),
      enable: (id: number, enabled: boolean) => json<ConnectorView>('PATCH', `${CONNECTOR}/${id}/enable`, { body: { enabled } }),
      testMessage: (id: number, body: z.input<typeof testMessageBody> = {}) => json<ConnectorOutcome>('POST', `${CONNECTOR}/${id}/test-message`, { body }),
      logs: (id: number, query: { cursor?: string; limit?: number } = {}) =>
        json<{ items: ConnectorLogView[]; cursor: string }>('GET', `${CONNECTOR}/${id}/logs`, { query }),
    },
    /** The dashboard's chart series: each answer is already a picture's numbers. */
    stats: {
      messages: (query: StatsMessagesQuery = {}) => json<CountSeries>('GET', '/api/stats/messages', { query }),
      reports: (minutes?: number) => json<ReportTallies>('GET', '/api/stats/reports', { query: { minutes } }),
      reportFields: (agent_id: string, type: ReportType, minutes?: number) =>
        json<ReportFields>('GET', '/api/stats/report-fields', { query: { agent_id, type, minutes } }),
      presence: (hours?: number) => json<PresenceStrips>('GET', '/api/stats/presence', { query: { hours } }),
      connector: (minutes?: number) => json<CountSeries>('GET', '/api/stats/connector', { query: { minutes } }),
      runtime: () => json<RuntimeSamples>('GET', '/api/stats/runtime'),
      /** Agents online and registered over the last `minutes` (60 by default), a point a minute. */
      online: (minutes?: number) => json<OnlineSeries>('GET', '/api/stats/online', { query: { minutes } }),
      unanswered: () => json<UnansweredSummary>('GET', '/api/stats/unanswered'),
    },
    /** Personal access tokens (for MCP clients): yours; admins name `user_id` or ask for `all`. */
    accessTokens: {
      list: (query: { user_id?: number; all?: boolean } = {}) => json<AccessTokenView[]>('GET', '/api/auth/access-tokens', { query }),
      /** The answer's `token` is shown this once. */
      mint: (name: string, user_id?: number) => json<z.infer<typeof mintedAccessToken>>('POST', '/api/auth/access-tokens', { body: { name, user_id } }),
      revoke: (id: number) => json<{ ok: true }>('DELETE', `/api/auth/access-tokens/${id}`),
    },
    admin: {
      actors: (query: { user_id?: number; limit?: number } = {}) => json<Record<string, unknown>>('GET', '/api/admin/actors', { query }),
      actor: (id: string) => json<ActorSnapshot>('GET', `/api/admin/actors/${encodeURIComponent(id)}`),
    },
    dev: {
      reset: () => json<{ status: string }>('POST', '/api/dev/mock/reset'),
      chat: (body: z.input<typeof mockChatBody>) => json<{ id: number }>('POST', '/api/dev/mock/chat', { body }),
      agentToken: (username: string) =>
        json<{ username: string; role: string; api_token: string }>('GET', `/api/dev/mock/agent-token/${encodeURIComponent(username)}`),
    },
  };
}
export type RestClient = ReturnType<typeof createRestClient>;
