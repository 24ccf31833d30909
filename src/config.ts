// Configuration: parsed once from the environment (plus `.env`) into a frozen, typed object by one
// zod schema: each variable, then the rules between variables (`superRefine`), then the `Config`.
// Nothing is parsed at import time; tests call `parseConfig` with a plain object.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { zodIssueMessages } from './protocol/validation.js';

/** `VAR=` in a .env file means "not set": the default applies. */
const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const boolean = (fallback: boolean) =>
  z.preprocess(
    (v) => (typeof v === 'string' ? unsetIfEmpty(v.trim().toLowerCase()) : v),
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on'),
  );

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)?$/i;
const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** `24h`, `90m`, `3600` (seconds) → whole seconds. */
export function parseDurationSeconds(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's').toLowerCase()]!;
  return seconds >= 1 ? Math.floor(seconds) : undefined;
}

/** `10s`, `500ms`, `2` (seconds), `0` → milliseconds; undefined when not a duration. */
function durationToMs(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  return match ? Math.round(Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's').toLowerCase()]! * 1000) : undefined;
}

/** `10s`, `500ms`, `2` (seconds) → milliseconds; undefined below 100 ms or when not a duration. */
export function parseDurationMs(text: string): number | undefined {
  const ms = durationToMs(text);
  return ms !== undefined && ms >= 100 ? ms : undefined;
}

/** Language-model calls in flight at once, hub-wide, unless BUTLER_MAX_CONCURRENCY says otherwise. */
export const DEFAULT_BUTLER_MAX_CONCURRENCY = 256;
/** Outbound bytes one socket may have queued (the slow-consumer bound). */
export const DEFAULT_WS_MAX_BUFFERED_BYTES = 1024 * 1024;

const positiveInt = (fallback: number) => z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).default(fallback));

/** A node's or a cluster's name: it goes into Redis keys, log lines and metric labels. */
const clusterLabel = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .trim()
    .max(64)
    .regex(/^[A-Za-z0-9._:-]+$/, 'must be letters, digits and . _ : -')
    .optional(),
);

const envSchema = z.object({
  SERVER_HOST: z.string().min(1).default('0.0.0.0'),
  SERVER_PORT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(65535).default(8080)),
  APP_ENV: z
    .string()
    .default('development')
    .transform((v) => v.trim().toLowerCase()),
  DB_DRIVER: z.enum(['sqlite', 'postgres', 'postgresql']).default('sqlite'),
  DB_PATH: z.string().min(1).default('./data/hub.db'),
  DATABASE_URL: optionalString,
  DB_DSN: optionalString,
  SQLITE_SYNCHRONOUS: z.preprocess((v) => (typeof v === 'string' ? unsetIfEmpty(v.trim().toLowerCase()) : v), z.enum(['full', 'normal']).default('full')),
  MESSAGE_RETENTION: optionalString,
  DB_READ_POOL_SIZE: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(64).default(1)),
  DB_READ_TIMEOUT: z.string().default('10s'),
  READS_PER_CALLER: positiveInt(4),
  // PostgreSQL time limits (see PgTimeouts); unset: DEFAULT_PG_TIMEOUTS.
  DB_CONNECT_TIMEOUT: optionalString,
  DB_STATEMENT_TIMEOUT: optionalString,
  DB_QUERY_TIMEOUT: optionalString,
  DB_IDLE_IN_TRANSACTION_TIMEOUT: optionalString,
  DB_KEEPALIVE_IDLE: optionalString,
  WRITE_QUEUE_MAX_BYTES: positiveInt(32 * 1024 * 1024),
  JWT_SECRET: optionalString,
  JWT_TOKEN_EXPIRATION: z.string().default('24h'),
  TOKEN_SECRET: optionalString,
  INITIAL_ADMIN_USER: optionalString,
  INITIAL_ADMIN_PASS: optionalString,
  ALLOW_SELF_REGISTRATION: boolean(false),
  LOGIN_MAX_FAILURES: positiveInt(10),
  // Unset: three times LOGIN_MAX_FAILURES (see `derive`).
  LOGIN_MAX_FAILURES_PER_ADDRESS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).optional()),
  // Unset: five times LOGIN_MAX_FAILURES (see `derive`).
  LOGIN_MAX_FAILURES_PER_ACCOUNT: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).optional()),
  LOGIN_FAILURE_WINDOW: z.string().default('15m'),
  CORS_ALLOWED_ORIGINS: z.string().default('http://localhost:5173,http://localhost:3000'),
  // Unset: the socket's address is the client's. See `trustProxyOf`.
  TRUST_PROXY: optionalString,
  BUTLER_BASE_URL: optionalString,
  BUTLER_API_TOKEN: optionalString,
  BUTLER_MODEL: optionalString,
  BUTLER_TIMEOUT: z.string().default('120s'),
  BUTLER_STREAM_IDLE_TIMEOUT: z.string().default('30s'),
  BUTLER_MAX_STEPS: positiveInt(6),
  BUTLER_MAX_REPLY_CHARS: positiveInt(16_000),
  BUTLER_HISTORY_WINDOW: positiveInt(20),
  BUTLER_STREAM_FLUSH_MS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(1000).default(50)),
  BUTLER_AUTH_TIMEOUT: z.string().default('10m'),
  BUTLER_AGENT_REPLY_TIMEOUT: z.string().default('60s'),
  BUTLER_AGENT_COMMANDS: z.preprocess(unsetIfEmpty, z.enum(['approval', 'allow', 'deny']).default('approval')),
  BUTLER_MAX_CONCURRENCY: positiveInt(DEFAULT_BUTLER_MAX_CONCURRENCY),
  CHATPLATFORM_BASE_URL: z.string().default('https://open.feishu.cn'),
  CHATPLATFORM_WS_ENABLED: boolean(false),
  CHATPLATFORM_TIMEOUT_MS: positiveInt(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.preprocess(unsetIfEmpty, z.enum(['json', 'pretty']).optional()),
  HTTP_BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
  WS_MAX_FRAME_BYTES: positiveInt(1024 * 1024),
  WS_HARD_FRAME_BYTES: z.preprocess(unsetIfEmpty, z.coerce.number().int().positive().optional()),
  WS_RATE_LIMIT: positiveInt(1000),
  WS_RATE_BURST: positiveInt(2000),
  WS_MAX_BUFFERED_BYTES: positiveInt(DEFAULT_WS_MAX_BUFFERED_BYTES),
  WS_IDLE_TIMEOUT: positiveInt(60),
  METRICS_ENABLED: boolean(true),
  METRICS_TOKEN: optionalString,
  // Not `unsetIfEmpty`: `WEB_DIR=` is how a hub is told to serve no dashboard.
  WEB_DIR: z.string().optional(),
  // A2A (src/a2a/): agent cards readable without a credential.
  A2A_PUBLIC_CARDS: boolean(false),
  // Tasks a caller may have open (not ended) at once over all agents: a store that cannot grow without bound.
  A2A_MAX_OPEN_TASKS: positiveInt(100),
  // Unset: allowed outside production only (see the Config field).
  A2A_ALLOW_PRIVATE_NETWORK: z.preprocess(
    (v) => (typeof v === 'string' ? unsetIfEmpty(v.trim().toLowerCase()) : v),
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
      .optional()
      .transform((v) => (v === undefined ? undefined : v === 'true' || v === '1' || v === 'yes' || v === 'on')),
  ),
  // How often a remote A2A agent's card is checked while it is online (src/a2a/remote/).
  A2A_AGENT_CHECK_INTERVAL: z.string().default('30s'),
  // Cluster mode: set, it joins the other nodes on this Redis (PostgreSQL only).
  REDIS_URL: optionalString,
  NODE_ID: clusterLabel,
  CLUSTER_NODE_TTL: z.string().default('10s'),
  // Key material for sealing what nodes say on Redis; unset: derived from the JWT secret.
  CLUSTER_SECRET: optionalString,
  // Nodes of one hub share a name on Redis (keys and channels); unset: the PostgreSQL database's name.
  CLUSTER_NAME: clusterLabel,
  // A header value: one line of printable text (a line break would end the header).
  WEB_CSP: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .max(4096)
      .regex(/^[\x20-\x7e]+$/, 'must be one line of printable ASCII (a Content-Security-Policy header value)')
      .optional(),
  ),
});

/** Largest frame the transport reads whole by default (16 MiB): the hub answers anything up to it. */
const DEFAULT_HARD_FRAME_BYTES = 16 * 1024 * 1024;

/**
 * The Content-Security-Policy of the dashboard's pages unless WEB_CSP says otherwise: what this hub's
 * Vite React build needs: its own scripts and styles (and inline styles from components), HTTP to the
 * hub, and its WebSocket: `ws:`/`wss:` because older Safari does not count a WebSocket to the page's
 * own host as 'self'. Another build (the older dashboards' inline theme script and web fonts) needs
 * a policy of its own.
 */
export const DEFAULT_WEB_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Time limits of the pool's connections, in milliseconds; 0 turns the statement, query and idle-in-transaction limits off. */
export interface PgTimeouts {
  /** Opening a connection, and waiting for a free one when all are checked out. */
  connectMs: number;
  /** The server cancels a statement that runs longer (statement_timeout): a clean error, the connection kept. */
  statementMs: number;
  /** The client gives up on a reply after this (the server is silent); the connection is destroyed. */
  queryMs: number;
  /** The server ends a session left idle inside a transaction this long (its locks go with it). */
  idleInTransactionMs: number;
  /** TCP keepalive probes start after this much silence, so a dead peer is found on an idle connection. */
  keepAliveIdleMs: number;
}

/**
 * Every query the hub makes is small and indexed, and a caller that waited 15 s has usually given up:
 * a statement running longer is stuck (the server cancels it); the client gives up on a reply 5 s
 * later, so the server's cancel comes first and only a silent server costs a connection. 5 s to
 * connect bounds every request while the server is away; keepalive finds a dead peer of an idle connection.
 */
export const DEFAULT_PG_TIMEOUTS: PgTimeouts = {
  connectMs: 5_000,
  statementMs: 15_000,
  queryMs: 20_000,
  idleInTransactionMs: 60_000,
  keepAliveIdleMs: 10_000,
};

/** Node's timer ceiling (2^31-1 ms), rounded down to whole days. */
const MAX_SESSION_SECONDS = 24 * 24 * 3600;

/** The store's read side for expensive reads (see store/reads.ts and the README's "Expensive reads"). */
export interface ReadsConfig {
  /** Reads running at once: reader threads (SQLite) or connections of the read pool (PostgreSQL). */
  readonly poolSize: number;
  /** A read still waiting or running after this answers 503 with Retry-After. */
  readonly timeoutMs: number;
  /** Expensive reads one caller may have in progress; one more answers 429. */
  readonly perCaller: number;
}

/** `synchronous`: see SQLITE_SYNCHRONOUS in the README (FULL: every answer means on disk). */
export type DbConfig = { driver: 'sqlite'; path: string; synchronous?: 'full' | 'normal' } | { driver: 'postgres'; url: string; timeouts?: PgTimeouts };

export interface ButlerConfig {
  /** The language model; undefined: safe mode (rule-based Butler). */
  readonly model?: { readonly baseUrl: string; readonly apiToken?: string; readonly name: string };
  /** A whole answer (every model step and tool call) must finish within this. */
  readonly turnTimeoutMs: number;
  /** A model stream that sends nothing for this long is given up. */
  readonly streamIdleTimeoutMs: number;
  /** Model calls per answer (tool-call rounds included). */
  readonly maxSteps: number;
  /** Longer replies are cut off, and say so. */
  readonly maxReplyChars: number;
  /** Recent chat rows given to the model as they are; older ones are summarised. */
  readonly historyWindow: number;
  /** Stream deltas are coalesced into one CHAT_STREAM frame per this many ms. */
  readonly streamFlushMs: number;
  /** An authorization request not answered within this becomes EXPIRED. */
  readonly authTimeoutMs: number;
  /** How long Butler waits for an agent's answer to a directive or question. */
  readonly agentReplyTimeoutMs: number;
  /** Commands an agent asks Butler to run on another agent: need an admin's approval, run, or are refused. */
  readonly agentCommands: 'approval' | 'allow' | 'deny';
  /** Language-model calls streaming at once, hub-wide; more wait their turn, round-robin by conversation. */
  readonly maxConcurrency: number;
}

export interface ClusterConfig {
  readonly redisUrl: string;
  /** Prefix of the cluster's keys and channels on Redis: nodes of one hub share it. */
  readonly name: string;
  /** Names this node in logs, metrics and inspection (NODE_ID; default host-pid-random). */
  readonly nodeId: string;
  /** A node silent for this long no longer counts: its sockets go offline unless held elsewhere. */
  readonly nodeTtlMs: number;
  /**
   * What the key sealing the nodes' messages on Redis is derived from (CLUSTER_SECRET); undefined:
   * from the JWT secret, which every node shares already.
   */
  readonly secret: string | undefined;
}

export interface Config {
  readonly env: string;
  readonly isProduction: boolean;
  readonly server: { readonly host: string; readonly port: number };
  readonly db: DbConfig;
  readonly reads: ReadsConfig;
  /** Folder for files the hub keeps beside its embedded database (generated development secrets). */
  readonly dataDir: string;
  readonly auth: {
    /** Undefined outside production when not set: the composition root generates and keeps one. */
    readonly jwtSecret: string | undefined;
    readonly jwtExpiresInSeconds: number;
    /** Key material for agent-token lookup and encryption; derived from the JWT secret when unset. */
    readonly tokenSecret: string | undefined;
    readonly initialAdmin: { readonly username: string; readonly password: string };
    readonly allowSelfRegistration: boolean;
    /** Failed logins allowed per (address, name) within the window before 429. */
    readonly loginMaxFailures: number;
    /** Failed logins allowed per address, on any names, within the window before 429. */
    readonly loginMaxFailuresPerAddress: number;
    /** Failed logins on one name from every address before its logins are locked for the window. */
    readonly loginMaxFailuresPerAccount: number;
    readonly loginFailureWindowSeconds: number;
  };
  readonly http: {
    readonly corsOrigins: readonly string[];
    readonly bodyLimitBytes: number;
    /** Proxies whose X-Forwarded-For names the client (TRUST_PROXY): addresses and ranges, or a hop count. */
    readonly trustProxy: readonly string[] | number | undefined;
  };
  readonly butler: ButlerConfig;
  readonly chatPlatform: {
    readonly baseUrl: string;
    readonly wsEnabled: boolean;
    /** Deadline of one call to the platform's HTTP API (verify, send). */
    readonly timeoutMs: number;
  };
  readonly logLevel: string;
  /** Undefined: pretty on a terminal, JSON lines otherwise. */
  readonly logFormat: 'json' | 'pretty' | undefined;
  readonly ws: {
    readonly maxFrameBytes: number;
    /** Frames above this are dropped by the transport itself (no close frame); the hub closes 1009 well below it. */
    readonly hardFrameBytes: number;
    readonly rateLimit: number;
    readonly rateBurst: number;
    /** Outbound bytes a socket may have queued before it is cut off as a slow consumer. */
    readonly maxBufferedBytes: number;
    /** Seconds of silence (pings unanswered) before a socket is considered dead. */
    readonly idleTimeoutSeconds: number;
  };
  /**
   * Bytes of messages taken and not yet committed, hub-wide, beyond which a new frame or HTTP write
   * is refused with `unavailable` (503) instead of queued: memory stays bounded while the store is slow or away.
   */
  readonly writeQueueMaxBytes: number;
  /** Telemetry rows older than `telemetryMs` are pruned in the background; undefined: kept forever. */
  readonly retention: { readonly telemetryMs: number | undefined };
  readonly metrics: {
    /** false: GET /metrics answers 404 and nothing is counted. */
    readonly enabled: boolean;
    /** Bearer token a scraper must send to GET /metrics; unset: the endpoint is open. */
    readonly token: string | undefined;
  };
  /** Cluster mode (REDIS_URL set): this node's name and how long a silent node's sockets still count. */
  readonly cluster: ClusterConfig | undefined;
  /** Folder of the built dashboard, served at `/`; undefined: `WEB_DIR=` (empty), no dashboard. */
  readonly webDir: string | undefined;
  /** Content-Security-Policy header of the dashboard's HTML pages. */
  readonly webCsp: string;
  /**
   * The A2A side: whether agent cards are served without a credential, and whether push-notification
   * webhooks may be on private, loopback or link-local addresses (A2A_ALLOW_PRIVATE_NETWORK; default:
   * only outside production, where a hub's neighbours are not to be reached on a caller's behalf).
   */
  readonly a2a: {
    readonly publicCards: boolean;
    readonly allowPrivateNetwork: boolean;
    /** A2A_MAX_OPEN_TASKS: tasks one caller may have open (not ended) at once; the next new one is refused. */
    readonly maxOpenTasks: number;
    /** Between checks of a remote A2A agent's card while it is online (A2A_AGENT_CHECK_INTERVAL). */
    readonly checkIntervalMs: number;
  };
  /** Insecure defaults that were applied; the composition root logs each one as a warning. */
  readonly warnings: readonly string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const DEV_ADMIN = { username: 'admin', password: 'admin123' };

type Env = z.output<typeof envSchema>;

/** The variables with the values several rules and the configuration read: computed once, before either. */
function derive(e: Env) {
  const isProduction = e.APP_ENV === 'production' || e.APP_ENV === 'prod';
  const admin = {
    username: e.INITIAL_ADMIN_USER ?? DEV_ADMIN.username,
    password: e.INITIAL_ADMIN_PASS ?? DEV_ADMIN.password,
  };
  // By default three names' full budgets (30 with the defaults): a few people mistyping behind one
  // NAT still get in, while one address trying a common password on many names gets 30 guesses a
  // window instead of no limit.
  const loginMaxFailuresPerAddress = e.LOGIN_MAX_FAILURES_PER_ADDRESS ?? 3 * e.LOGIN_MAX_FAILURES;
  // By default five addresses' full budgets on one name (50 with the defaults): guesses from
  // rotating addresses stop there, while a user locked out by someone else's guessing waits one
  // window rather than forever.
  const loginMaxFailuresPerAccount = e.LOGIN_MAX_FAILURES_PER_ACCOUNT ?? 5 * e.LOGIN_MAX_FAILURES;
  const hardFrameBytes = e.WS_HARD_FRAME_BYTES ?? Math.max(DEFAULT_HARD_FRAME_BYTES, 4 * e.WS_MAX_FRAME_BYTES);
  const seconds = {
    jwtExpires: parseDurationSeconds(e.JWT_TOKEN_EXPIRATION),
    loginFailureWindow: parseDurationSeconds(e.LOGIN_FAILURE_WINDOW),
    butlerTurn: parseDurationSeconds(e.BUTLER_TIMEOUT),
    butlerStreamIdle: parseDurationSeconds(e.BUTLER_STREAM_IDLE_TIMEOUT),
    butlerAuth: parseDurationSeconds(e.BUTLER_AUTH_TIMEOUT),
    butlerAgentReply: parseDurationSeconds(e.BUTLER_AGENT_REPLY_TIMEOUT),
    clusterNodeTtl: parseDurationSeconds(e.CLUSTER_NODE_TTL),
    messageRetention: e.MESSAGE_RETENTION === undefined ? undefined : parseDurationSeconds(e.MESSAGE_RETENTION),
  };
  const pgTimeouts = {
    connectMs: durationMs(e.DB_CONNECT_TIMEOUT, DEFAULT_PG_TIMEOUTS.connectMs),
    statementMs: durationMs(e.DB_STATEMENT_TIMEOUT, DEFAULT_PG_TIMEOUTS.statementMs),
    queryMs: durationMs(e.DB_QUERY_TIMEOUT, DEFAULT_PG_TIMEOUTS.queryMs),
    idleInTransactionMs: durationMs(e.DB_IDLE_IN_TRANSACTION_TIMEOUT, DEFAULT_PG_TIMEOUTS.idleInTransactionMs),
    keepAliveIdleMs: durationMs(e.DB_KEEPALIVE_IDLE, DEFAULT_PG_TIMEOUTS.keepAliveIdleMs),
  };
  const readTimeoutMs = parseDurationMs(e.DB_READ_TIMEOUT);
  const a2aCheckIntervalMs = parseDurationMs(e.A2A_AGENT_CHECK_INTERVAL);
  return {
    ...e,
    isProduction,
    admin,
    loginMaxFailuresPerAddress,
    loginMaxFailuresPerAccount,
    hardFrameBytes,
    databaseUrl: e.DATABASE_URL ?? e.DB_DSN,
    seconds,
    readTimeoutMs,
    a2aCheckIntervalMs,
    pgTimeouts,
  };
}

/** `5s`, `500ms`, `2m`, `0` → milliseconds (unset: `fallback`); undefined when it is not a duration. */
function durationMs(text: string | undefined, fallback: number): number | undefined {
  return text === undefined ? fallback : durationToMs(text);
}

type Settings = ReturnType<typeof derive>;

/**
 * The rules between variables, and the durations' syntax (reported with them, as one list). They run
 * only once every variable parsed on its own; each issue's message is a whole sentence naming its
 * variables, and its path the variable to change.
 */
function checkRules(s: Settings, ctx: z.RefinementCtx): void {
  const problem = (variable: keyof Env, message: string) => ctx.addIssue({ code: 'custom', path: [variable], message });

  if (s.DB_DRIVER !== 'sqlite' && !s.databaseUrl) problem('DATABASE_URL', 'DATABASE_URL (or DB_DSN) is required when DB_DRIVER=postgres');
  if (s.REDIS_URL !== undefined) {
    // Every node must read and write one store; a SQLite file belongs to one process on one machine.
    if (s.DB_DRIVER === 'sqlite') problem('REDIS_URL', 'REDIS_URL (cluster mode) needs DB_DRIVER=postgres: nodes cannot share a SQLite file');
    if (!/^rediss?:\/\//.test(s.REDIS_URL) || !URL.canParse(s.REDIS_URL))
      problem('REDIS_URL', `REDIS_URL must be a redis:// or rediss:// URL (got "${redactUrl(s.REDIS_URL)}")`);
  }
  // A short secret could be guessed offline from one sealed message seen on Redis.
  if (s.CLUSTER_SECRET !== undefined && s.CLUSTER_SECRET.length < 32) problem('CLUSTER_SECRET', 'CLUSTER_SECRET must be at least 32 characters');
  if (s.seconds.clusterNodeTtl === undefined || s.seconds.clusterNodeTtl < 2)
    problem('CLUSTER_NODE_TTL', `CLUSTER_NODE_TTL must be a duration of at least 2s, such as 10s (got "${s.CLUSTER_NODE_TTL}")`);
  if (s.a2aCheckIntervalMs === undefined)
    problem(
      'A2A_AGENT_CHECK_INTERVAL',
      `A2A_AGENT_CHECK_INTERVAL must be a duration of at least 100ms, such as 30s or 500ms (got "${s.A2A_AGENT_CHECK_INTERVAL}")`,
    );
  if (s.readTimeoutMs === undefined)
    problem('DB_READ_TIMEOUT', `DB_READ_TIMEOUT must be a duration of at least 100ms, such as 10s or 500ms (got "${s.DB_READ_TIMEOUT}")`);
  if (s.seconds.loginFailureWindow === undefined) {
    problem('LOGIN_FAILURE_WINDOW', `LOGIN_FAILURE_WINDOW must be a duration such as 15m or 900 (got "${s.LOGIN_FAILURE_WINDOW}")`);
  }
  // Shorter than an hour would prune reports a dashboard is still showing; a typo should not do that.
  if (s.MESSAGE_RETENTION !== undefined && (s.seconds.messageRetention === undefined || s.seconds.messageRetention < 3600))
    problem(
      'MESSAGE_RETENTION',
      `MESSAGE_RETENTION must be a duration of at least 1h, such as 30d (got "${s.MESSAGE_RETENTION}"); unset keeps telemetry forever`,
    );
  const pgLimits = [
    ['DB_CONNECT_TIMEOUT', s.pgTimeouts.connectMs],
    ['DB_STATEMENT_TIMEOUT', s.pgTimeouts.statementMs],
    ['DB_QUERY_TIMEOUT', s.pgTimeouts.queryMs],
    ['DB_IDLE_IN_TRANSACTION_TIMEOUT', s.pgTimeouts.idleInTransactionMs],
    ['DB_KEEPALIVE_IDLE', s.pgTimeouts.keepAliveIdleMs],
  ] as const;
  for (const [name, ms] of pgLimits) if (ms === undefined) problem(name, `${name} must be a duration such as 5s, 500ms or 30 (got "${s[name]}")`);
  // Without a limit on connecting, a silent server would hold every request that needs a connection.
  if (s.pgTimeouts.connectMs !== undefined && s.pgTimeouts.connectMs < 100) problem('DB_CONNECT_TIMEOUT', 'DB_CONNECT_TIMEOUT must be at least 100ms');
  // The server's own cancel (a clean error; the connection is kept) must come before the client
  // gives up on a reply (the connection is destroyed); otherwise every slow statement costs a connection.
  const { statementMs, queryMs } = s.pgTimeouts;
  if (statementMs !== undefined && queryMs !== undefined && queryMs > 0 && (statementMs === 0 || statementMs >= queryMs))
    problem(
      'DB_QUERY_TIMEOUT',
      `DB_QUERY_TIMEOUT must be longer than DB_STATEMENT_TIMEOUT (a statement is cancelled by the server before the hub gives up on its connection), or 0`,
    );
  // Below the per-name budget, one name's typos would shut the whole address out before that name
  // itself is refused, so the per-name limit would never apply.
  if (s.loginMaxFailuresPerAddress < s.LOGIN_MAX_FAILURES)
    problem('LOGIN_MAX_FAILURES_PER_ADDRESS', 'LOGIN_MAX_FAILURES_PER_ADDRESS must be at least LOGIN_MAX_FAILURES');
  // Below the per-name budget, one address's typos would lock the name everywhere before that
  // address itself is refused.
  if (s.loginMaxFailuresPerAccount < s.LOGIN_MAX_FAILURES)
    problem('LOGIN_MAX_FAILURES_PER_ACCOUNT', 'LOGIN_MAX_FAILURES_PER_ACCOUNT must be at least LOGIN_MAX_FAILURES');
  if (s.seconds.jwtExpires === undefined) {
    problem('JWT_TOKEN_EXPIRATION', `JWT_TOKEN_EXPIRATION must be a duration such as 24h, 90m or 3600 (got "${s.JWT_TOKEN_EXPIRATION}")`);
  } else if (s.seconds.jwtExpires > MAX_SESSION_SECONDS) {
    // A live socket is closed when its JWT expires, by one timer; Node timers cannot wait longer.
    problem('JWT_TOKEN_EXPIRATION', 'JWT_TOKEN_EXPIRATION must be at most 24 days (24d)');
  }

  // Production must not run on secrets anyone can read in this repository.
  if (s.isProduction) {
    if (!s.JWT_SECRET || s.JWT_SECRET.length < 32) problem('JWT_SECRET', 'JWT_SECRET of at least 32 characters is required in production');
    if (!s.INITIAL_ADMIN_USER || !s.INITIAL_ADMIN_PASS) problem('INITIAL_ADMIN_USER', 'INITIAL_ADMIN_USER and INITIAL_ADMIN_PASS are required in production');
  }
  if (s.admin.username === 'Butler') problem('INITIAL_ADMIN_USER', 'INITIAL_ADMIN_USER cannot be "Butler": that name belongs to the core agent');
  if (s.admin.username.length > 64) problem('INITIAL_ADMIN_USER', 'INITIAL_ADMIN_USER must be at most 64 characters');
  if (s.admin.password.length < 8) problem('INITIAL_ADMIN_PASS', 'INITIAL_ADMIN_PASS must be at least 8 characters');

  // The hub answers frames up to twice WS_MAX_FRAME_BYTES with an ERROR and closes with 1009 above
  // that; the transport must be able to read such a frame whole to do so.
  if (s.hardFrameBytes <= 2 * s.WS_MAX_FRAME_BYTES)
    problem('WS_HARD_FRAME_BYTES', `WS_HARD_FRAME_BYTES must be more than twice WS_MAX_FRAME_BYTES (${2 * s.WS_MAX_FRAME_BYTES})`);

  for (const name of ['BUTLER_BASE_URL', 'CHATPLATFORM_BASE_URL'] as const) {
    const value = s[name];
    if (value !== undefined && !URL.canParse(value)) problem(name, `${name} must be a URL (got "${value}")`);
  }
  const butlerDurations = [
    ['BUTLER_TIMEOUT', s.seconds.butlerTurn],
    ['BUTLER_STREAM_IDLE_TIMEOUT', s.seconds.butlerStreamIdle],
    ['BUTLER_AUTH_TIMEOUT', s.seconds.butlerAuth],
    ['BUTLER_AGENT_REPLY_TIMEOUT', s.seconds.butlerAgentReply],
  ] as const;
  for (const [name, seconds] of butlerDurations) {
    if (seconds === undefined) problem(name, `${name} must be a duration such as 30s, 10m or 60 (got "${s[name]}")`);
  }
  if (s.seconds.butlerAuth !== undefined && s.seconds.butlerAuth > MAX_SESSION_SECONDS)
    problem('BUTLER_AUTH_TIMEOUT', 'BUTLER_AUTH_TIMEOUT must be at most 24 days (24d)');
  if (s.WS_RATE_BURST < s.WS_RATE_LIMIT) problem('WS_RATE_BURST', 'WS_RATE_BURST must be at least WS_RATE_LIMIT (the bucket must hold one second of traffic)');
  // uWS sends pings on its own and counts idle time in 4-second steps; below 8 s a healthy client
  // on a slow link would be cut off between two pings.
  if (s.WS_IDLE_TIMEOUT < 8) problem('WS_IDLE_TIMEOUT', 'WS_IDLE_TIMEOUT must be at least 8 (seconds)');
  if (s.TRUST_PROXY !== undefined && trustProxyOf(s.TRUST_PROXY) === undefined) {
    problem(
      'TRUST_PROXY',
      `TRUST_PROXY must be a number of proxy hops, or addresses and CIDR ranges (or loopback, linklocal, uniquelocal) separated by commas (got "${s.TRUST_PROXY}")`,
    );
  }
  // A guessable scrape token would be worse than none: it suggests protection that is not there.
  if (s.METRICS_TOKEN !== undefined && s.METRICS_TOKEN.length < 16) problem('METRICS_TOKEN', 'METRICS_TOKEN must be at least 16 characters');
}

/** Insecure defaults that were applied, and settings that do less than they seem to. */
function warningsOf(s: Settings): string[] {
  const warnings: string[] = [];
  if (!s.isProduction) {
    if (!s.JWT_SECRET) warnings.push('JWT_SECRET is not set: using a generated secret kept in the data folder (development only)');
    if (!s.INITIAL_ADMIN_USER || !s.INITIAL_ADMIN_PASS) {
      warnings.push(`INITIAL_ADMIN_USER/INITIAL_ADMIN_PASS are not set: the bootstrap admin is ${DEV_ADMIN.username}/${DEV_ADMIN.password} (development only)`);
    }
    if (s.JWT_SECRET && s.JWT_SECRET.length < 32) warnings.push('JWT_SECRET is shorter than 32 characters');
  }
  if (!(s.BUTLER_BASE_URL && s.BUTLER_MODEL) && (s.BUTLER_BASE_URL || s.BUTLER_MODEL)) {
    warnings.push("BUTLER_BASE_URL and BUTLER_MODEL are both needed for Butler's language model: Butler runs in safe mode (rule-based)");
  }
  if (s.DB_DRIVER === 'sqlite' && s.SQLITE_SYNCHRONOUS === 'normal') {
    warnings.push('SQLITE_SYNCHRONOUS=normal: a power loss or OS crash can lose the last acknowledged messages (a process crash loses none)');
  }
  // Whoever reaches the port directly writes the hops the hub believes: each forged address is a
  // fresh per-address login budget (the per-account cap still holds).
  if (s.TRUST_PROXY !== undefined && typeof trustProxyOf(s.TRUST_PROXY) === 'number') {
    warnings.push(
      `TRUST_PROXY=${s.TRUST_PROXY.trim()} is a hop count: a client that reaches this port directly chooses its own X-Forwarded-For address; keep the port out of clients' reach, or list the proxies' addresses instead`,
    );
  }
  if (s.isProduction && s.METRICS_ENABLED && s.METRICS_TOKEN === undefined) {
    warnings.push("METRICS_TOKEN is not set: GET /metrics is open to anyone who can reach the hub's port");
  }
  return warnings;
}

/** Checked settings → the configuration; `checkRules` has refused every undefined duration read here. */
function build(s: Settings, cwd: string): Config {
  const ms = (seconds: number | undefined) => seconds! * 1000;
  return deepFreeze<Config>({
    env: s.isProduction ? 'production' : s.APP_ENV,
    isProduction: s.isProduction,
    server: { host: s.SERVER_HOST, port: s.SERVER_PORT },
    db:
      s.DB_DRIVER === 'sqlite'
        ? { driver: 'sqlite', path: resolve(cwd, s.DB_PATH), synchronous: s.SQLITE_SYNCHRONOUS }
        : { driver: 'postgres', url: s.databaseUrl!, timeouts: s.pgTimeouts as PgTimeouts },
    reads: { poolSize: s.DB_READ_POOL_SIZE, timeoutMs: s.readTimeoutMs!, perCaller: s.READS_PER_CALLER },
    writeQueueMaxBytes: s.WRITE_QUEUE_MAX_BYTES,
    retention: { telemetryMs: s.seconds.messageRetention === undefined ? undefined : s.seconds.messageRetention * 1000 },
    dataDir: resolve(cwd, s.DB_PATH, '..'),
    auth: {
      jwtSecret: s.JWT_SECRET,
      jwtExpiresInSeconds: s.seconds.jwtExpires!,
      tokenSecret: s.TOKEN_SECRET,
      initialAdmin: s.admin,
      allowSelfRegistration: s.ALLOW_SELF_REGISTRATION,
      loginMaxFailures: s.LOGIN_MAX_FAILURES,
      loginMaxFailuresPerAddress: s.loginMaxFailuresPerAddress,
      loginMaxFailuresPerAccount: s.loginMaxFailuresPerAccount,
      loginFailureWindowSeconds: s.seconds.loginFailureWindow!,
    },
    http: {
      corsOrigins: s.CORS_ALLOWED_ORIGINS.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      bodyLimitBytes: s.HTTP_BODY_LIMIT_BYTES,
      trustProxy: s.TRUST_PROXY === undefined ? undefined : trustProxyOf(s.TRUST_PROXY),
    },
    butler: {
      model: s.BUTLER_BASE_URL && s.BUTLER_MODEL ? { baseUrl: s.BUTLER_BASE_URL, apiToken: s.BUTLER_API_TOKEN, name: s.BUTLER_MODEL } : undefined,
      turnTimeoutMs: ms(s.seconds.butlerTurn),
      streamIdleTimeoutMs: ms(s.seconds.butlerStreamIdle),
      maxSteps: s.BUTLER_MAX_STEPS,
      maxReplyChars: s.BUTLER_MAX_REPLY_CHARS,
      historyWindow: s.BUTLER_HISTORY_WINDOW,
      streamFlushMs: s.BUTLER_STREAM_FLUSH_MS,
      authTimeoutMs: ms(s.seconds.butlerAuth),
      agentReplyTimeoutMs: ms(s.seconds.butlerAgentReply),
      agentCommands: s.BUTLER_AGENT_COMMANDS,
      maxConcurrency: s.BUTLER_MAX_CONCURRENCY,
    },
    chatPlatform: { baseUrl: s.CHATPLATFORM_BASE_URL, wsEnabled: s.CHATPLATFORM_WS_ENABLED, timeoutMs: s.CHATPLATFORM_TIMEOUT_MS },
    logLevel: s.LOG_LEVEL,
    logFormat: s.LOG_FORMAT,
    ws: {
      maxFrameBytes: s.WS_MAX_FRAME_BYTES,
      hardFrameBytes: s.hardFrameBytes,
      rateLimit: s.WS_RATE_LIMIT,
      rateBurst: s.WS_RATE_BURST,
      maxBufferedBytes: s.WS_MAX_BUFFERED_BYTES,
      idleTimeoutSeconds: s.WS_IDLE_TIMEOUT,
    },
    metrics: { enabled: s.METRICS_ENABLED, token: s.METRICS_TOKEN },
    cluster:
      s.REDIS_URL === undefined
        ? undefined
        : {
            redisUrl: s.REDIS_URL,
            name: s.CLUSTER_NAME ?? databaseName(s.databaseUrl),
            nodeId: s.NODE_ID ?? defaultNodeId(),
            nodeTtlMs: ms(s.seconds.clusterNodeTtl),
            secret: s.CLUSTER_SECRET,
          },
    webDir: s.WEB_DIR === undefined ? defaultWebDir(cwd) : s.WEB_DIR.trim() === '' ? undefined : resolve(cwd, s.WEB_DIR.trim()),
    webCsp: s.WEB_CSP ?? DEFAULT_WEB_CSP,
    a2a: {
      publicCards: s.A2A_PUBLIC_CARDS,
      allowPrivateNetwork: s.A2A_ALLOW_PRIVATE_NETWORK ?? !s.isProduction,
      maxOpenTasks: s.A2A_MAX_OPEN_TASKS,
      checkIntervalMs: s.a2aCheckIntervalMs!,
    },
    warnings: warningsOf(s),
  });
}

/**
 * The whole configuration as one schema: each variable on its own, then the rules between them, then
 * the typed result. Built per call because relative paths resolve against `cwd`.
 */
export function configSchema(cwd: string) {
  return envSchema
    .transform(derive)
    .superRefine(checkRules)
    .transform((s) => build(s, cwd));
}

/** One sentence per problem: a rule's issue is its own sentence; a variable's is phrased from its zod issue. */
function problemsOf(error: z.ZodError, vars: Record<string, string | undefined>): string[] {
  const sentences = error.issues.map((issue) => (issue.code === 'custom' ? issue.message : zodIssueMessages(new z.ZodError([issue]), vars)[0]!));
  return [...new Set(sentences)];
}

/** Validates a flat variable map (environment + `.env`) and derives the typed configuration. */
export function parseConfig(vars: Record<string, string | undefined>, cwd = process.cwd()): Config {
  const parsed = configSchema(cwd).safeParse(vars);
  if (!parsed.success) throw new ConfigError(problemsOf(parsed.error, vars));
  return parsed.data;
}

/**
 * `dist/web` in the project's root: the folder holding the package.json nearest above this module,
 * so it is the same under tsx (src/) and compiled (dist/src/), whatever the working directory.
 */
function defaultWebDir(cwd: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web');
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd, 'dist', 'web');
    dir = parent;
  }
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY → a hop count, or addresses/ranges/names; undefined when any part is not one. */
function trustProxyOf(text: string): readonly string[] | number | undefined {
  if (/^\d+$/.test(text)) return Number(text) >= 1 ? Number(text) : undefined;
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const valid = (part: string) => {
    if (PROXY_NAMES.has(part)) return true;
    const [address, bits, extra] = part.split('/');
    if (extra !== undefined || isIP(address!) === 0) return false;
    if (bits === undefined) return true;
    const max = isIP(address!) === 4 ? 32 : 128;
    return /^\d{1,3}$/.test(bits) && Number(bits) <= max;
  };
  return parts.length > 0 && parts.every(valid) ? parts : undefined;
}

/** A node's default name: its host, its pid and a random suffix (two nodes on one host never share it). */
function defaultNodeId(): string {
  return `${hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .slice(0, 40)}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** The database name in a PostgreSQL URL (the default cluster name: nodes on one database are one hub). */
function databaseName(url: string | undefined): string {
  const name = url && URL.canParse(url) ? decodeURIComponent(new URL(url).pathname.slice(1)) : '';
  return name.replace(/[^A-Za-z0-9._:-]/g, '-') || 'agent-hub';
}

/** A URL without its password, for a message that may be logged. */
function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return text.replace(/:[^:@/]*@/, ':***@');
  }
}

/** Reads `.env` from `cwd` (if present) under the process environment, which wins. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  let fileVars: Record<string, string> = {};
  try {
    fileVars = parseDotenv(readFileSync(resolve(cwd, '.env')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return parseConfig({ ...fileVars, ...env }, cwd);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
