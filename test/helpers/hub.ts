// Starts a real hub in-process on 127.0.0.1:0 with its own database, through the test kit
// (src/testing, @agent-hub/testing), and gives tests a client, an admin session, helpers to make
// users and agents, and the hub's captured log lines.
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Hub } from '../../src/hub.js';
import { startTestHub as startKit, type TestHub as KitHub } from '../../src/testing/index.js';
import { createTestDatabase, type Driver, type TestDatabase } from './db.js';
import { apiClient, type ApiClient } from './http.js';
import { startTcpProxy, type TcpProxy } from './tcpProxy.js';

export interface TestHub {
  hub: Hub;
  url: string;
  api: ApiClient;
  jwtSecret: string;
  /** The store settings of this hub's database (DB_DRIVER, DB_PATH or DATABASE_URL). */
  dbEnv: Record<string, string>;
  logs: Array<Record<string, unknown>>;
  adminToken: string;
  login(username: string, password: string): Promise<string>;
  createMember(options?: { role?: 'MEMBER' | 'ADMIN' }): Promise<{ id: number; username: string; token: string }>;
  createAgent(username?: string): Promise<{ id: number; username: string; api_token: string }>;
  /** The newest stored message id (0 when none): a `since` that replays only what follows. */
  lastMessageId(): Promise<number>;
  /**
   * Stops this hub (keeping its database) and starts a new one on the same database and secret (and `env`, unless given).
   * With a fixed SERVER_PORT in `env` the new hub binds the same port; with the default (0) it gets a new one.
   */
  restart(env?: Record<string, string>): Promise<TestHub>;
  /** The hub's time, and (with `clock: 'simulated'`) moving it: the kit's clock. */
  clock: KitHub['clock'];
  stop(): Promise<void>;
}

interface LogSink {
  lines: Array<Record<string, unknown>>;
}

let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${randomBytes(2).toString('hex')}`;

/** Settings over the defaults; a function sees the test database's settings first (to reroute DATABASE_URL). */
export type TestHubEnv = Record<string, string> | ((dbEnv: Record<string, string>) => Record<string, string>);

export interface TestHubOptions {
  /** The hub's timers: real time (default), or the kit's simulated clock that `clock.advance` moves. Kept across `restart`. */
  clock?: 'simulated' | 'real';
}

export async function startTestHub(driver: Driver, extraEnv: TestHubEnv = {}, options: TestHubOptions = {}): Promise<TestHub> {
  const database = await createTestDatabase(driver);
  const env = typeof extraEnv === 'function' ? extraEnv(database.env) : extraEnv;
  return launch(database, randomBytes(32).toString('hex'), env, options);
}

/**
 * A hub on PostgreSQL reached through a TCP proxy, so a test can take the store away (`proxy.cut()`)
 * and give it back (`proxy.restore()`). `stop` stops the hub and closes the proxy, whatever state it was left in.
 */
export async function startTestHubBehindProxy(env: Record<string, string> = {}): Promise<{ t: TestHub; proxy: TcpProxy; stop(): Promise<void> }> {
  const upstream = new URL(inject('pgUrl')!);
  const proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  const t = await startTestHub('postgres', (db) => ({ ...env, DATABASE_URL: proxy.via(db['DATABASE_URL']!) }));
  return {
    t,
    proxy,
    async stop() {
      await proxy.restore().catch(() => undefined);
      await t.stop();
      await proxy.close();
    },
  };
}

async function launch(database: TestDatabase, jwtSecret: string, env: Record<string, string>, options: TestHubOptions = {}): Promise<TestHub> {
  // The test kit starts the hub (so these tests exercise it), on this test's database and secret, as the hub
  // runs by default: real time unless the test asks for the kit's clock, Butler in safe mode unless `env`
  // gives it a model, and the chat platform settings left to `env`.
  // Each hub (a restart's too) has its own log lines: the kit's go to the newest one's.
  const sink: LogSink = { lines: [] };
  const kit = await startKit({
    ...(database.env['DB_DRIVER'] === 'postgres' ? { databaseUrl: database.env['DATABASE_URL'] } : { databasePath: database.env['DB_PATH'] }),
    env: { JWT_SECRET: jwtSecret, ...env },
    model: false,
    platform: false,
    clock: options.clock ?? 'real',
    onLog: (line) => sink.lines.push(line),
  }).catch(async (err: unknown) => {
    await database.drop();
    throw err;
  });
  return wrap(kit, database, jwtSecret, env, sink);
}

/** The harness's view of one hub the kit started (a new one after each restart, with its own log lines). */
function wrap(kit: KitHub, database: TestDatabase, jwtSecret: string, env: Record<string, string>, sink: LogSink): TestHub {
  const hub = kit.hub;
  const logs = sink.lines;
  const url = `http://127.0.0.1:${hub.port}`;
  const api = apiClient(url);

  async function login(username: string, password: string): Promise<string> {
    const res = await api.post('/api/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
  const adminToken = kit.adminToken;

  return {
    hub,
    url,
    api,
    jwtSecret,
    dbEnv: database.env,
    logs,
    adminToken,
    login,
    async createMember(options = {}) {
      const username = uniqueName('member');
      const res = await api.post('/api/users', { username, password: 'member-password', role: options.role ?? 'MEMBER' }, { token: adminToken });
      if (res.status !== 201) throw new Error(`creating ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as number, username, token: await login(username, 'member-password') };
    },
    async createAgent(username = uniqueName('agent')) {
      const res = await api.post('/api/users/agents', { username }, { token: adminToken });
      if (res.status !== 201) throw new Error(`registering ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as number, username, api_token: res.body.api_token as string };
    },
    async lastMessageId() {
      const row = await hub.store.db
        .selectFrom('messages')
        .select((eb) => eb.fn.max('id').as('m'))
        .executeTakeFirstOrThrow();
      return Number(row.m ?? 0);
    },
    clock: kit.clock,
    async restart(nextEnv = env) {
      sink.lines = [];
      await kit.restart({ env: { JWT_SECRET: jwtSecret, ...nextEnv } }).catch(async (err: unknown) => {
        await kit.stop();
        await database.drop();
        throw err;
      });
      return wrap(kit, database, jwtSecret, nextEnv, sink);
    },
    async stop() {
      await kit.stop();
      await database.drop();
    },
  };
}
