// Starts a real hub in-process on 127.0.0.1:0 with its own database, and gives tests a client,
// an admin session, helpers to make users and agents, and the hub's captured log lines.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { inject } from 'vitest';
import type { Timers } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { startHub, type Hub } from '../../src/hub.js';
import { createLogger } from '../../src/logger.js';
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
  stop(): Promise<void>;
}

let counter = 0;
export const uniqueName = (prefix: string) => `${prefix}-${process.pid}-${++counter}-${randomBytes(2).toString('hex')}`;

/** Settings over the defaults; a function sees the test database's settings first (to reroute DATABASE_URL). */
export type TestHubEnv = Record<string, string> | ((dbEnv: Record<string, string>) => Record<string, string>);

export interface TestHubOptions {
  /** The hub's timers (HubOptions.timers): simulated ones (src/testing/simulatedTimers.ts) let a test move time. Kept across `restart`. */
  timers?: Timers;
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
  const config = parseConfig({
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: '0',
    JWT_SECRET: jwtSecret,
    INITIAL_ADMIN_USER: 'admin',
    INITIAL_ADMIN_PASS: 'admin-password',
    LOG_LEVEL: 'info',
    // No dashboard unless a test gives one: a hub starts the same whether or not dist/web was built.
    WEB_DIR: '',
    ...database.env,
    ...env,
  });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const hub = await startHub({ config, logger: createLogger(config.logLevel, sink), passwordCost: 1024, timers: options.timers }).catch(
    async (err: unknown) => {
      await database.drop();
      throw err;
    },
  );
  const url = `http://127.0.0.1:${hub.port}`;
  const api = apiClient(url);

  async function login(username: string, password: string): Promise<string> {
    const res = await api.post('/api/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login of ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
  const adminToken = await login('admin', 'admin-password');

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
    async restart(nextEnv = env) {
      await hub.stop();
      return launch(database, jwtSecret, nextEnv, options);
    },
    async stop() {
      await hub.stop();
      await database.drop();
    },
  };
}
