import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, expect, expectTypeOf } from 'vitest';
import type { z } from 'zod';
import { ConfigError, DEFAULT_WEB_CSP, configSchema, loadConfig, parseConfig, parseDurationSeconds, type Config } from '../../src/config.js';

const STRONG_SECRET = 'x'.repeat(32);
const PRODUCTION_OK = {
  APP_ENV: 'production',
  JWT_SECRET: STRONG_SECRET,
  INITIAL_ADMIN_USER: 'root',
  INITIAL_ADMIN_PASS: 'a-long-admin-password',
  METRICS_TOKEN: 'a-long-scrape-token',
};

/** The problems of the ConfigError that parseConfig throws; fails the test if it does not throw one. */
function problemsOf(vars: Record<string, string | undefined>): string[] {
  try {
    parseConfig(vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  expect.fail(`parseConfig accepted ${JSON.stringify(vars)}`);
}

describe('parseConfig defaults outside production', () => {
  const config = parseConfig({});

  it('serves on 0.0.0.0:8080', () => {
    expect(config.server).toEqual({ host: '0.0.0.0', port: 8080 });
  });

  it('is a development configuration', () => {
    expect(config.env).toBe('development');
    expect(config.isProduction).toBe(false);
  });

  it('uses sqlite at ./data/hub.db, resolved to an absolute path', () => {
    expect(config.db.driver).toBe('sqlite');
    const path = config.db.driver === 'sqlite' ? config.db.path : '';
    expect(isAbsolute(path)).toBe(true);
    expect(path).toBe(resolve('./data/hub.db'));
    expect(config.dataDir).toBe(resolve('./data'));
  });

  it('issues 24h (86400 s) sessions without a configured secret', () => {
    expect(config.auth.jwtExpiresInSeconds).toBe(86400);
    expect(config.auth.jwtSecret).toBeUndefined();
    expect(config.auth.tokenSecret).toBeUndefined();
  });

  it('bootstraps admin/admin123 and keeps self-registration off', () => {
    expect(config.auth.initialAdmin).toEqual({ username: 'admin', password: 'admin123' });
    expect(config.auth.allowSelfRegistration).toBe(false);
  });

  it('throttles failed logins: 10 per name and address, 30 per address, in 15 minutes', () => {
    expect(config.auth).toMatchObject({ loginMaxFailures: 10, loginMaxFailuresPerAddress: 30, loginFailureWindowSeconds: 900 });
  });

  it('allows the two local dashboard origins', () => {
    expect(config.http.corsOrigins).toEqual(['http://localhost:5173', 'http://localhost:3000']);
    expect(config.http.bodyLimitBytes).toBe(1048576);
  });

  it('points the chat platform at open.feishu.cn with WS off, and runs Butler in safe mode with its defaults', () => {
    expect(config.chatPlatform).toEqual({ baseUrl: 'https://open.feishu.cn', wsEnabled: false, timeoutMs: 10_000 });
    expect(config.butler).toEqual({
      model: undefined,
      turnTimeoutMs: 120_000,
      streamIdleTimeoutMs: 30_000,
      maxSteps: 6,
      maxReplyChars: 16_000,
      historyWindow: 20,
      streamFlushMs: 50,
      authTimeoutMs: 600_000,
      agentReplyTimeoutMs: 60_000,
      agentCommands: 'approval',
      maxConcurrency: 256,
    });
  });

  it('caps concurrent model calls at BUTLER_MAX_CONCURRENCY, a whole number of at least 1', () => {
    expect(parseConfig({ BUTLER_MAX_CONCURRENCY: '8' }).butler.maxConcurrency).toBe(8);
    expect(problemsOf({ BUTLER_MAX_CONCURRENCY: '0' })).toEqual(['BUTLER_MAX_CONCURRENCY must be at least 1']);
    expect(problemsOf({ BUTLER_MAX_CONCURRENCY: 'many' })).toEqual(['BUTLER_MAX_CONCURRENCY must be a number']);
  });

  it('caps a caller at A2A_MAX_OPEN_TASKS open A2A tasks, 100 unless set, a whole number of at least 1', () => {
    expect(config.a2a.maxOpenTasks).toBe(100);
    expect(parseConfig({ A2A_MAX_OPEN_TASKS: '5' }).a2a.maxOpenTasks).toBe(5);
    expect(problemsOf({ A2A_MAX_OPEN_TASKS: '0' })).toEqual(['A2A_MAX_OPEN_TASKS must be at least 1']);
  });

  it('has WebSocket limits 1048576 / 1000 / 2000 and log level info', () => {
    expect(config.ws).toEqual({
      maxFrameBytes: 1048576,
      hardFrameBytes: 16777216,
      rateLimit: 1000,
      rateBurst: 2000,
      maxBufferedBytes: 1048576,
      idleTimeoutSeconds: 60,
    });
    expect(config.logLevel).toBe('info');
  });

  it('warns about every insecure default it applied', () => {
    expect(config.warnings).toHaveLength(2);
    expect(config.warnings.some((w) => w.includes('JWT_SECRET is not set'))).toBe(true);
    expect(config.warnings.some((w) => w.includes('admin/admin123'))).toBe(true);
  });

  it('warns about a short JWT_SECRET, and not about the admin when one is configured', () => {
    const c = parseConfig({ JWT_SECRET: 'short', INITIAL_ADMIN_USER: 'boss', INITIAL_ADMIN_PASS: 'boss-password' });
    expect(c.warnings).toEqual(['JWT_SECRET is shorter than 32 characters']);
    expect(c.auth.initialAdmin).toEqual({ username: 'boss', password: 'boss-password' });
  });

  it('gives no warnings when the secret and the admin are set', () => {
    const c = parseConfig({ JWT_SECRET: STRONG_SECRET, INITIAL_ADMIN_USER: 'boss', INITIAL_ADMIN_PASS: 'boss-password' });
    expect(c.warnings).toEqual([]);
  });
});

describe('parseConfig in production', () => {
  for (const appEnv of ['production', 'prod', ' PRODUCTION ']) {
    describe(`APP_ENV=${JSON.stringify(appEnv)}`, () => {
      const base = { ...PRODUCTION_OK, APP_ENV: appEnv };

      it('refuses to start without JWT_SECRET', () => {
        const problems = problemsOf({ ...base, JWT_SECRET: undefined });
        expect(problems).toEqual(['JWT_SECRET of at least 32 characters is required in production']);
      });

      it('refuses a blank JWT_SECRET', () => {
        expect(problemsOf({ ...base, JWT_SECRET: '   ' })).toEqual(['JWT_SECRET of at least 32 characters is required in production']);
      });

      it('refuses a JWT_SECRET of 31 characters', () => {
        const problems = problemsOf({ ...base, JWT_SECRET: 'x'.repeat(31) });
        expect(problems).toEqual(['JWT_SECRET of at least 32 characters is required in production']);
      });

      it('refuses to start without INITIAL_ADMIN_USER', () => {
        const problems = problemsOf({ ...base, INITIAL_ADMIN_USER: undefined });
        expect(problems).toEqual(['INITIAL_ADMIN_USER and INITIAL_ADMIN_PASS are required in production']);
      });

      it('refuses to start without INITIAL_ADMIN_PASS', () => {
        const problems = problemsOf({ ...base, INITIAL_ADMIN_PASS: undefined });
        expect(problems).toEqual(['INITIAL_ADMIN_USER and INITIAL_ADMIN_PASS are required in production']);
      });

      it('names every missing variable at once', () => {
        const problems = problemsOf({ APP_ENV: appEnv });
        expect(problems).toHaveLength(2);
        expect(problems[0]).toContain('JWT_SECRET');
        expect(problems[1]).toContain('INITIAL_ADMIN_USER');
        expect(problems[1]).toContain('INITIAL_ADMIN_PASS');
      });

      it('starts with no warnings when everything is set', () => {
        const c = parseConfig(base);
        expect(c.env).toBe('production');
        expect(c.isProduction).toBe(true);
        expect(c.warnings).toEqual([]);
        expect(c.auth.jwtSecret).toBe(STRONG_SECRET);
        expect(c.auth.initialAdmin).toEqual({ username: 'root', password: 'a-long-admin-password' });
      });
    });
  }

  it('says which variable is wrong in the ConfigError message', () => {
    expect(() => parseConfig({ APP_ENV: 'production' })).toThrow(/JWT_SECRET/);
  });

  it('still rejects an admin password shorter than 8 characters', () => {
    expect(problemsOf({ ...PRODUCTION_OK, INITIAL_ADMIN_PASS: 'short' })).toEqual(['INITIAL_ADMIN_PASS must be at least 8 characters']);
  });
});

describe('parseConfig database', () => {
  it('requires DATABASE_URL for postgres', () => {
    expect(problemsOf({ DB_DRIVER: 'postgres' })).toEqual(['DATABASE_URL (or DB_DSN) is required when DB_DRIVER=postgres']);
  });

  it('takes DATABASE_URL for postgres', () => {
    const c = parseConfig({ DB_DRIVER: 'postgres', DATABASE_URL: 'postgres://u@db/hub' });
    expect(c.db).toMatchObject({ driver: 'postgres', url: 'postgres://u@db/hub' });
  });

  it('accepts DB_DSN as an alias of DATABASE_URL', () => {
    const c = parseConfig({ DB_DRIVER: 'postgres', DB_DSN: 'postgres://u@db/dsn' });
    expect(c.db).toMatchObject({ driver: 'postgres', url: 'postgres://u@db/dsn' });
  });

  it('prefers DATABASE_URL over DB_DSN', () => {
    const c = parseConfig({ DB_DRIVER: 'postgres', DATABASE_URL: 'postgres://u@db/url', DB_DSN: 'postgres://u@db/dsn' });
    expect(c.db).toMatchObject({ driver: 'postgres', url: 'postgres://u@db/url' });
  });

  it('gives PostgreSQL connections time limits: 5s connect, 15s statement, 20s reply, 60s idle in a transaction, 10s keepalive', () => {
    const c = parseConfig({ DB_DRIVER: 'postgres', DATABASE_URL: 'postgres://u@db/hub' });
    expect(c.db).toEqual({
      driver: 'postgres',
      url: 'postgres://u@db/hub',
      timeouts: { connectMs: 5_000, statementMs: 15_000, queryMs: 20_000, idleInTransactionMs: 60_000, keepAliveIdleMs: 10_000 },
    });
    const set = parseConfig({
      DB_DRIVER: 'postgres',
      DATABASE_URL: 'postgres://u@db/hub',
      DB_CONNECT_TIMEOUT: '500ms',
      DB_STATEMENT_TIMEOUT: '0',
      DB_QUERY_TIMEOUT: '0',
      DB_IDLE_IN_TRANSACTION_TIMEOUT: '2m',
      DB_KEEPALIVE_IDLE: '30',
    });
    expect(set.db).toMatchObject({ timeouts: { connectMs: 500, statementMs: 0, queryMs: 0, idleInTransactionMs: 120_000, keepAliveIdleMs: 30_000 } });
  });

  it('refuses a reply limit not longer than the statement limit, and a limit that is no duration', () => {
    const pgEnv = { DB_DRIVER: 'postgres', DATABASE_URL: 'postgres://u@db/hub' };
    expect(problemsOf({ ...pgEnv, DB_STATEMENT_TIMEOUT: '20s', DB_QUERY_TIMEOUT: '20s' })).toEqual([
      'DB_QUERY_TIMEOUT must be longer than DB_STATEMENT_TIMEOUT (a statement is cancelled by the server before the hub gives up on its connection), or 0',
    ]);
    expect(problemsOf({ ...pgEnv, DB_CONNECT_TIMEOUT: 'soon' })).toEqual(['DB_CONNECT_TIMEOUT must be a duration such as 5s, 500ms or 30 (got "soon")']);
    expect(problemsOf({ ...pgEnv, DB_CONNECT_TIMEOUT: '10ms' })).toEqual(['DB_CONNECT_TIMEOUT must be at least 100ms']);
  });

  it('bounds the write queue at 32 MiB unless WRITE_QUEUE_MAX_BYTES says otherwise', () => {
    expect(parseConfig({}).writeQueueMaxBytes).toBe(32 * 1024 * 1024);
    expect(parseConfig({ WRITE_QUEUE_MAX_BYTES: '65536' }).writeQueueMaxBytes).toBe(65_536);
  });

  it('accepts DB_DRIVER=postgresql as postgres', () => {
    const c = parseConfig({ DB_DRIVER: 'postgresql', DATABASE_URL: 'postgres://u@db/hub' });
    expect(c.db.driver).toBe('postgres');
  });

  it('rejects an unknown driver, listing the allowed ones', () => {
    expect(problemsOf({ DB_DRIVER: 'mysql' })).toEqual(['DB_DRIVER must be one of sqlite, postgres, postgresql']);
  });

  it('resolves DB_PATH and puts the data folder beside it', () => {
    const c = parseConfig({ DB_PATH: '/var/lib/hub/hub.sqlite' });
    expect(c.db).toEqual({ driver: 'sqlite', path: '/var/lib/hub/hub.sqlite', synchronous: 'full' });
    expect(c.dataDir).toBe('/var/lib/hub');
  });

  it('keeps SQLite commits durable (FULL) unless SQLITE_SYNCHRONOUS=normal, which warns what it loses', () => {
    expect(parseConfig({}).warnings.some((w) => w.includes('SQLITE_SYNCHRONOUS'))).toBe(false);
    const c = parseConfig({ SQLITE_SYNCHRONOUS: 'NORMAL' });
    expect(c.db).toMatchObject({ driver: 'sqlite', synchronous: 'normal' });
    expect(c.warnings).toContain('SQLITE_SYNCHRONOUS=normal: a power loss or OS crash can lose the last acknowledged messages (a process crash loses none)');
    expect(problemsOf({ SQLITE_SYNCHRONOUS: 'off' })).toEqual(['SQLITE_SYNCHRONOUS must be one of full, normal']);
  });

  it('keeps telemetry forever unless MESSAGE_RETENTION is a duration of at least an hour', () => {
    expect(parseConfig({}).retention).toEqual({ telemetryMs: undefined });
    expect(parseConfig({ MESSAGE_RETENTION: '30d' }).retention).toEqual({ telemetryMs: 30 * 86_400_000 });
    expect(parseConfig({ MESSAGE_RETENTION: '' }).retention).toEqual({ telemetryMs: undefined });
    for (const value of ['10m', 'a month'])
      expect(problemsOf({ MESSAGE_RETENTION: value })).toEqual([
        `MESSAGE_RETENTION must be a duration of at least 1h, such as 30d (got "${value}"); unset keeps telemetry forever`,
      ]);
  });

  it('reads the expensive reads settings: a read pool, a deadline of at least 100 ms, a limit per caller', () => {
    expect(parseConfig({}).reads).toEqual({ poolSize: 1, timeoutMs: 10_000, perCaller: 4 });
    expect(parseConfig({ DB_READ_POOL_SIZE: '4', DB_READ_TIMEOUT: '500ms', READS_PER_CALLER: '1' }).reads).toEqual({
      poolSize: 4,
      timeoutMs: 500,
      perCaller: 1,
    });
    expect(parseConfig({ DB_READ_TIMEOUT: '2m' }).reads.timeoutMs).toBe(120_000);
    for (const value of ['50ms', 'soon'])
      expect(problemsOf({ DB_READ_TIMEOUT: value })).toEqual([`DB_READ_TIMEOUT must be a duration of at least 100ms, such as 10s or 500ms (got "${value}")`]);
    expect(problemsOf({ READS_PER_CALLER: '0' })).toHaveLength(1);
  });
});

describe('parseConfig WEB_DIR', () => {
  const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

  it('defaults to dist/web in the project root, whatever the working directory', () => {
    expect(parseConfig({}).webDir).toBe(join(projectRoot, 'dist', 'web'));
    expect(parseConfig({}, tmpdir()).webDir).toBe(join(projectRoot, 'dist', 'web'));
  });

  it('resolves a relative WEB_DIR against the working directory, as DB_PATH is', () => {
    expect(parseConfig({ WEB_DIR: 'public' }, '/srv/hub').webDir).toBe('/srv/hub/public');
    expect(parseConfig({ WEB_DIR: ' /opt/dashboard ' }).webDir).toBe('/opt/dashboard');
  });

  it('takes WEB_DIR= (empty) as no dashboard, not as the default', () => {
    expect(parseConfig({ WEB_DIR: '' }).webDir).toBeUndefined();
    expect(parseConfig({ WEB_DIR: '  ' }).webDir).toBeUndefined();
  });
});

describe('parseConfig WEB_CSP', () => {
  it("defaults to the strict policy this hub's dashboard needs, also when empty", () => {
    expect(parseConfig({}).webCsp).toBe(DEFAULT_WEB_CSP);
    expect(parseConfig({ WEB_CSP: '  ' }).webCsp).toBe(DEFAULT_WEB_CSP);
    expect(DEFAULT_WEB_CSP).toContain("script-src 'self';");
  });

  it('takes a policy of its own, trimmed', () => {
    expect(parseConfig({ WEB_CSP: " default-src 'self'; font-src https://fonts.gstatic.com " }).webCsp).toBe(
      "default-src 'self'; font-src https://fonts.gstatic.com",
    );
  });

  it('refuses a value that is not one header line', () => {
    expect(problemsOf({ WEB_CSP: "default-src 'self'\nX-Injected: 1" })).toEqual([
      'WEB_CSP must be one line of printable ASCII (a Content-Security-Policy header value)',
    ]);
  });
});

describe('parseConfig rejects invalid values, naming the variable', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ SERVER_PORT: 'abc' }, 'SERVER_PORT must be a number'],
    [{ SERVER_PORT: '70000' }, 'SERVER_PORT must be at most 65535'],
    [{ SERVER_PORT: '80.5' }, 'SERVER_PORT must be an integer'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ JWT_TOKEN_EXPIRATION: 'soon' }, 'JWT_TOKEN_EXPIRATION must be a duration such as 24h, 90m or 3600 (got "soon")'],
    [{ JWT_TOKEN_EXPIRATION: '500ms' }, 'JWT_TOKEN_EXPIRATION must be a duration such as 24h, 90m or 3600 (got "500ms")'],
    [{ BUTLER_BASE_URL: 'not a url' }, 'BUTLER_BASE_URL must be a URL (got "not a url")'],
    [{ BUTLER_AUTH_TIMEOUT: 'soon' }, 'BUTLER_AUTH_TIMEOUT must be a duration such as 30s, 10m or 60 (got "soon")'],
    [{ BUTLER_AGENT_COMMANDS: 'maybe' }, 'BUTLER_AGENT_COMMANDS must be one of approval, allow, deny'],
    [{ CHATPLATFORM_BASE_URL: 'feishu' }, 'CHATPLATFORM_BASE_URL must be a URL (got "feishu")'],
    [{ CHATPLATFORM_TIMEOUT_MS: '0' }, 'CHATPLATFORM_TIMEOUT_MS must be at least 1'],
    [{ WS_RATE_LIMIT: '20', WS_RATE_BURST: '10' }, 'WS_RATE_BURST must be at least WS_RATE_LIMIT (the bucket must hold one second of traffic)'],
    [{ INITIAL_ADMIN_USER: 'Butler', INITIAL_ADMIN_PASS: 'long-enough' }, 'INITIAL_ADMIN_USER cannot be "Butler": that name belongs to the core agent'],
    [{ INITIAL_ADMIN_USER: 'u'.repeat(65), INITIAL_ADMIN_PASS: 'long-enough' }, 'INITIAL_ADMIN_USER must be at most 64 characters'],
    [{ SERVER_HOST: '' }, 'SERVER_HOST must not be empty'],
    [{ LOGIN_MAX_FAILURES: '10', LOGIN_MAX_FAILURES_PER_ADDRESS: '5' }, 'LOGIN_MAX_FAILURES_PER_ADDRESS must be at least LOGIN_MAX_FAILURES'],
    [{ LOGIN_MAX_FAILURES_PER_ADDRESS: '0' }, 'LOGIN_MAX_FAILURES_PER_ADDRESS must be at least 1'],
    [{ LOGIN_MAX_FAILURES: '10', LOGIN_MAX_FAILURES_PER_ACCOUNT: '9' }, 'LOGIN_MAX_FAILURES_PER_ACCOUNT must be at least LOGIN_MAX_FAILURES'],
    [{ LOGIN_MAX_FAILURES_PER_ACCOUNT: '0' }, 'LOGIN_MAX_FAILURES_PER_ACCOUNT must be at least 1'],
  ];
  for (const [vars, message] of cases) {
    it(`${JSON.stringify(vars)} → ${message}`, () => {
      expect(problemsOf(vars)).toEqual([message]);
    });
  }

  it('rejects Butler as the admin even when only the user is set (falls back to the dev password)', () => {
    expect(problemsOf({ INITIAL_ADMIN_USER: 'Butler' })).toEqual(['INITIAL_ADMIN_USER cannot be "Butler": that name belongs to the core agent']);
  });

  it('reports several schema problems together', () => {
    expect(problemsOf({ SERVER_PORT: 'abc', LOG_LEVEL: 'loud' })).toEqual([
      'SERVER_PORT must be a number',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it("sets the per-address login budget to three names' budgets unless given", () => {
    expect(parseConfig({ LOGIN_MAX_FAILURES: '50' }).auth.loginMaxFailuresPerAddress).toBe(150);
    expect(parseConfig({ LOGIN_MAX_FAILURES: '5', LOGIN_MAX_FAILURES_PER_ADDRESS: '5' }).auth.loginMaxFailuresPerAddress).toBe(5);
  });

  it("sets the per-account login cap to five addresses' budgets unless given", () => {
    expect(parseConfig({}).auth.loginMaxFailuresPerAccount).toBe(50);
    expect(parseConfig({ LOGIN_MAX_FAILURES: '4' }).auth.loginMaxFailuresPerAccount).toBe(20);
    expect(parseConfig({ LOGIN_MAX_FAILURES: '5', LOGIN_MAX_FAILURES_PER_ACCOUNT: '7' }).auth.loginMaxFailuresPerAccount).toBe(7);
  });

  it('accepts WS_RATE_BURST equal to WS_RATE_LIMIT', () => {
    expect(parseConfig({ WS_RATE_LIMIT: '50', WS_RATE_BURST: '50' }).ws).toMatchObject({ rateLimit: 50, rateBurst: 50 });
  });

  it('refuses an idle timeout under 8 s and a JWT lifetime over 24 days', () => {
    expect(problemsOf({ WS_IDLE_TIMEOUT: '4' })).toEqual(['WS_IDLE_TIMEOUT must be at least 8 (seconds)']);
    expect(problemsOf({ JWT_TOKEN_EXPIRATION: '30d' })).toEqual(['JWT_TOKEN_EXPIRATION must be at most 24 days (24d)']);
    expect(parseConfig({ JWT_TOKEN_EXPIRATION: '24d', WS_IDLE_TIMEOUT: '8' }).ws.idleTimeoutSeconds).toBe(8);
  });

  it('explains a zero WS_RATE_LIMIT correctly', () => {
    expect(problemsOf({ WS_RATE_LIMIT: '0' })).toEqual([expect.stringMatching(/^WS_RATE_LIMIT must be at least 1$/)]);
  });

  it('reads an empty SERVER_PORT as unset, not as port 0', () => {
    // `SERVER_PORT=` in a .env file means "not set": the default applies.
    expect(parseConfig({ SERVER_PORT: '' }).server.port).toBe(8080);
  });
});

describe('parseConfig rules between variables', () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ LOGIN_FAILURE_WINDOW: 'a while' }, 'LOGIN_FAILURE_WINDOW must be a duration such as 15m or 900 (got "a while")'],
    [{ BUTLER_TIMEOUT: 'soon' }, 'BUTLER_TIMEOUT must be a duration such as 30s, 10m or 60 (got "soon")'],
    [{ BUTLER_STREAM_IDLE_TIMEOUT: '10ms' }, 'BUTLER_STREAM_IDLE_TIMEOUT must be a duration such as 30s, 10m or 60 (got "10ms")'],
    [{ BUTLER_AGENT_REPLY_TIMEOUT: 'x' }, 'BUTLER_AGENT_REPLY_TIMEOUT must be a duration such as 30s, 10m or 60 (got "x")'],
    [{ BUTLER_AUTH_TIMEOUT: '25d' }, 'BUTLER_AUTH_TIMEOUT must be at most 24 days (24d)'],
    [{ WS_MAX_FRAME_BYTES: '1000', WS_HARD_FRAME_BYTES: '2000' }, 'WS_HARD_FRAME_BYTES must be more than twice WS_MAX_FRAME_BYTES (2000)'],
    [{ METRICS_TOKEN: 'short-token' }, 'METRICS_TOKEN must be at least 16 characters'],
    [{ INITIAL_ADMIN_USER: 'boss', INITIAL_ADMIN_PASS: 'short' }, 'INITIAL_ADMIN_PASS must be at least 8 characters'],
  ];
  for (const [vars, message] of cases) {
    it(`${JSON.stringify(vars)} → ${message}`, () => {
      expect(problemsOf(vars)).toEqual([message]);
    });
  }

  it('takes a hard frame limit above twice the frame limit, and defaults it to 4 × the frame limit when that is above 16 MiB', () => {
    expect(parseConfig({ WS_MAX_FRAME_BYTES: '1000', WS_HARD_FRAME_BYTES: '2001' }).ws.hardFrameBytes).toBe(2001);
    expect(parseConfig({ WS_MAX_FRAME_BYTES: String(8 * 1024 * 1024) }).ws.hardFrameBytes).toBe(32 * 1024 * 1024);
  });

  it('accepts an authorization timeout of 24 days and a 16-character scrape token', () => {
    const c = parseConfig({ BUTLER_AUTH_TIMEOUT: '24d', METRICS_TOKEN: 'x'.repeat(16) });
    expect(c.butler.authTimeoutMs).toBe(24 * 86400 * 1000);
    expect(c.metrics.token).toBe('x'.repeat(16));
  });

  it('names every broken rule at once, in a fixed order', () => {
    expect(problemsOf({ DB_DRIVER: 'postgres', JWT_TOKEN_EXPIRATION: 'soon', WS_IDLE_TIMEOUT: '4', METRICS_TOKEN: 'short', BUTLER_TIMEOUT: 'never' })).toEqual([
      'DATABASE_URL (or DB_DSN) is required when DB_DRIVER=postgres',
      'JWT_TOKEN_EXPIRATION must be a duration such as 24h, 90m or 3600 (got "soon")',
      'BUTLER_TIMEOUT must be a duration such as 30s, 10m or 60 (got "never")',
      'WS_IDLE_TIMEOUT must be at least 8 (seconds)',
      'METRICS_TOKEN must be at least 16 characters',
    ]);
  });

  it('checks the rules only once every variable parsed on its own', () => {
    expect(problemsOf({ SERVER_PORT: 'abc', WS_IDLE_TIMEOUT: '4', DB_DRIVER: 'postgres' })).toEqual(['SERVER_PORT must be a number']);
  });

  it('has the exported Config as its output type', () => {
    expectTypeOf<z.output<ReturnType<typeof configSchema>>>().toEqualTypeOf<Config>();
    expect(configSchema('/srv/hub').parse({ DB_PATH: 'hub.db' }).db).toEqual({ driver: 'sqlite', path: '/srv/hub/hub.db', synchronous: 'full' });
  });

  it('puts the variable to change on each issue of the schema', () => {
    const parsed = configSchema(process.cwd()).safeParse({ WS_RATE_LIMIT: '20', WS_RATE_BURST: '10', INITIAL_ADMIN_USER: 'Butler' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([['INITIAL_ADMIN_USER'], ['WS_RATE_BURST']]);
  });

  it('warns when only one of BUTLER_BASE_URL and BUTLER_MODEL is set, and runs Butler in safe mode', () => {
    for (const vars of [{ BUTLER_BASE_URL: 'http://127.0.0.1:1/v1' }, { BUTLER_MODEL: 'm1' }]) {
      const c = parseConfig({ JWT_SECRET: STRONG_SECRET, INITIAL_ADMIN_USER: 'boss', INITIAL_ADMIN_PASS: 'boss-password', ...vars });
      expect(c.butler.model).toBeUndefined();
      expect(c.warnings).toEqual(["BUTLER_BASE_URL and BUTLER_MODEL are both needed for Butler's language model: Butler runs in safe mode (rule-based)"]);
    }
  });

  it('warns in production when /metrics is served without a token, and not when metrics are off', () => {
    const open = parseConfig({ ...PRODUCTION_OK, METRICS_TOKEN: undefined });
    expect(open.warnings).toEqual(["METRICS_TOKEN is not set: GET /metrics is open to anyone who can reach the hub's port"]);
    expect(parseConfig({ ...PRODUCTION_OK, METRICS_TOKEN: undefined, METRICS_ENABLED: 'false' }).warnings).toEqual([]);
    expect(
      parseConfig({ METRICS_ENABLED: 'true', JWT_SECRET: STRONG_SECRET, INITIAL_ADMIN_USER: 'boss', INITIAL_ADMIN_PASS: 'boss-password' }).warnings,
    ).toEqual([]);
  });
});

describe('parseConfig values', () => {
  for (const [text, value] of [
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ] as const) {
    it(`reads the boolean ${JSON.stringify(text)} as ${value}`, () => {
      const c = parseConfig({ ALLOW_SELF_REGISTRATION: text, CHATPLATFORM_WS_ENABLED: text });
      expect(c.auth.allowSelfRegistration).toBe(value);
      expect(c.chatPlatform.wsEnabled).toBe(value);
    });
  }

  it('rejects a boolean it does not know', () => {
    const problems = problemsOf({ ALLOW_SELF_REGISTRATION: 'maybe' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^ALLOW_SELF_REGISTRATION must be one of 0, 1, true, false/);
  });

  it('splits and trims CORS origins', () => {
    const c = parseConfig({ CORS_ALLOWED_ORIGINS: ' https://a.example , https://b.example,, ' });
    expect(c.http.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
  });

  it('reads numbers, durations and Butler settings', () => {
    const c = parseConfig({
      SERVER_PORT: '9000',
      JWT_TOKEN_EXPIRATION: '90m',
      WS_MAX_FRAME_BYTES: '4096',
      HTTP_BODY_LIMIT_BYTES: '2048',
      BUTLER_BASE_URL: ' https://butler.example/v1 ',
      BUTLER_API_TOKEN: 'tok',
      BUTLER_MODEL: 'm1',
      BUTLER_AUTH_TIMEOUT: '2m',
      BUTLER_AGENT_REPLY_TIMEOUT: '5',
      BUTLER_AGENT_COMMANDS: 'allow',
      TOKEN_SECRET: 'token-secret',
    });
    expect(c.server.port).toBe(9000);
    expect(c.auth.jwtExpiresInSeconds).toBe(5400);
    expect(c.ws.maxFrameBytes).toBe(4096);
    expect(c.http.bodyLimitBytes).toBe(2048);
    expect(c.butler.model).toEqual({ baseUrl: 'https://butler.example/v1', apiToken: 'tok', name: 'm1' });
    expect(c.butler).toMatchObject({ authTimeoutMs: 120_000, agentReplyTimeoutMs: 5000, agentCommands: 'allow' });
    expect(c.auth.tokenSecret).toBe('token-secret');
  });

  it('is deeply frozen', () => {
    const c: Config = parseConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.server)).toBe(true);
    expect(Object.isFrozen(c.auth.initialAdmin)).toBe(true);
    expect(Object.isFrozen(c.http.corsOrigins)).toBe(true);
    expect(Object.isFrozen(c.warnings)).toBe(true);
    expect(() => {
      (c.server as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (c.http.corsOrigins as string[]).push('https://evil.example');
    }).toThrow(TypeError);
    expect(c.server.port).toBe(8080);
  });
});

describe('parseDurationSeconds', () => {
  const table: Array<[string, number | undefined]> = [
    ['24h', 86400],
    ['90m', 5400],
    ['3600', 3600],
    ['2d', 172800],
    ['1w', 604800],
    ['45s', 45],
    ['1.5h', 5400],
    ['1500ms', 1],
    [' 10 S ', 10],
    ['500ms', undefined],
    ['0', undefined],
    ['-5', undefined],
    ['', undefined],
    ['garbage', undefined],
    ['24 hours', undefined],
  ];
  for (const [text, seconds] of table) {
    it(`${JSON.stringify(text)} → ${seconds}`, () => {
      expect(parseDurationSeconds(text)).toBe(seconds);
    });
  }
});

describe('loadConfig', () => {
  function withTempDir(run: (dir: string) => void): void {
    const dir = mkdtempSync(join(tmpdir(), 'hub-config-'));
    try {
      run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('reads .env from the given folder, and the passed environment wins over it', () => {
    withTempDir((dir) => {
      writeFileSync(join(dir, '.env'), ['# comment', 'SERVER_PORT=9100', 'LOG_LEVEL=debug', 'JWT_TOKEN_EXPIRATION="2h"', 'BUTLER_MODEL=from-file'].join('\n'));
      const c = loadConfig({ LOG_LEVEL: 'warn', BUTLER_MODEL: 'from-env', BUTLER_BASE_URL: 'http://127.0.0.1:1/v1' }, dir);
      expect(c.server.port).toBe(9100);
      expect(c.auth.jwtExpiresInSeconds).toBe(7200);
      expect(c.logLevel).toBe('warn');
      expect(c.butler.model?.name).toBe('from-env');
    });
  });

  it('validates values that come from .env', () => {
    withTempDir((dir) => {
      writeFileSync(join(dir, '.env'), 'SERVER_PORT=abc\n');
      expect(() => loadConfig({}, dir)).toThrow(ConfigError);
    });
  });

  it('is fine without a .env file', () => {
    withTempDir((dir) => {
      const c = loadConfig({ SERVER_PORT: '7000' }, dir);
      expect(c.server.port).toBe(7000);
      expect(c.logLevel).toBe('info');
    });
  });
});

describe('cluster settings', () => {
  const pg = { DB_DRIVER: 'postgres', DATABASE_URL: 'postgres://127.0.0.1/test', JWT_SECRET: 'x'.repeat(32) };
  it('are off without REDIS_URL', () => {
    expect(parseConfig({ ...pg }).cluster).toBeUndefined();
  });
  it('turn on with REDIS_URL, with a default node id and a 10 s node TTL', () => {
    const config = parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.cluster).toMatchObject({ redisUrl: 'redis://127.0.0.1:6379', nodeTtlMs: 10_000 });
    expect(config.cluster!.nodeId).toMatch(new RegExp(`-${process.pid}-[0-9a-f]{6}$`));
    expect(parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1:6379', NODE_ID: 'node-a', CLUSTER_NODE_TTL: '3s' }).cluster).toMatchObject({
      nodeId: 'node-a',
      nodeTtlMs: 3000,
    });
  });
  it('refuse a SQLite store, a URL that is not Redis (without echoing its password) and a TTL under 2 s', () => {
    expect(() => parseConfig({ REDIS_URL: 'redis://127.0.0.1:6379', JWT_SECRET: 'x'.repeat(32) })).toThrow(/needs DB_DRIVER=postgres/);
    const bad = (() => {
      try {
        parseConfig({ ...pg, REDIS_URL: 'http://user:hunter2@host:1' });
      } catch (err) {
        return String(err);
      }
    })();
    expect(bad).toMatch(/REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(bad).not.toContain('hunter2');
    expect(() => parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1', CLUSTER_NODE_TTL: '1s' })).toThrow(/CLUSTER_NODE_TTL must be a duration of at least 2s/);
    expect(() => parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1', NODE_ID: 'a b' })).toThrow(/NODE_ID/);
  });
  it('take CLUSTER_SECRET for the bus seal (unset: the JWT secret is used), and refuse a short one', () => {
    expect(parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1' }).cluster!.secret).toBeUndefined();
    expect(parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1', CLUSTER_SECRET: 's'.repeat(32) }).cluster!.secret).toBe('s'.repeat(32));
    expect(() => parseConfig({ ...pg, REDIS_URL: 'redis://127.0.0.1', CLUSTER_SECRET: 'short' })).toThrow(/CLUSTER_SECRET must be at least 32 characters/);
  });
});

describe('TRUST_PROXY', () => {
  const base = { JWT_SECRET: 'x'.repeat(32) };
  it('is off unless set, and takes a hop count or addresses, ranges and names', () => {
    expect(parseConfig(base).http.trustProxy).toBeUndefined();
    expect(parseConfig({ ...base, TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(parseConfig({ ...base, TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, 192.0.2.4' }).http.trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.4',
    ]);
  });
  it('warns at start when it is a hop count, which any client reaching the port can forge', () => {
    const hops = parseConfig({ ...base, TRUST_PROXY: '2' }).warnings.filter((w) => w.startsWith('TRUST_PROXY'));
    expect(hops).toEqual([
      "TRUST_PROXY=2 is a hop count: a client that reaches this port directly chooses its own X-Forwarded-For address; keep the port out of clients' reach, or list the proxies' addresses instead",
    ]);
    expect(parseConfig({ ...base, TRUST_PROXY: '10.0.0.5' }).warnings.filter((w) => w.startsWith('TRUST_PROXY'))).toEqual([]);
  });
  it('refuses what proxy-addr would not take, naming the setting', () => {
    for (const bad of ['0', 'everyone', '10.0.0.0/33', '300.1.1.1', 'loopback,,x']) {
      expect(() => parseConfig({ ...base, TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY must be a number of proxy hops/);
    }
  });
});
