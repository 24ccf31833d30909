// Starting and stopping the servers under test, each in its own child process: the hub (src/main.ts
// with a throwaway SQLite database) and the raw uWS relay (bench/rawRelay.ts).
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, waitForHttp } from './net.js';
import { spawnTs, stopChild } from './spawn.js';

export interface Server {
  /** `hub-no-metrics`: the hub with METRICS_ENABLED=false, to measure what metrics cost. */
  kind: 'hub' | 'hub-no-metrics' | 'raw';
  pid: number;
  port: number;
  /** Answers 200 on the server's event loop (readiness and the loop-lag proxy). */
  pingUrl: string;
  /** WebSocket URL for one user: `credential` is a token on the hub, a user id on the relay. */
  wsUrl(credential: string | number): string;
  alive(): boolean;
  stop(): Promise<void>;
}

function serverOf(kind: Server['kind'], child: ChildProcess, port: number, pingPath: string, wsUrl: (c: string | number) => string): Server {
  return {
    kind,
    pid: child.pid!,
    port,
    pingUrl: `http://127.0.0.1:${port}${pingPath}`,
    wsUrl,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () => stopChild(child),
  };
}

export interface HubOptions {
  /** Folder for hub.db and hub.log; reusing it restarts the hub on the same database. */
  dir: string;
  /** Where --cpu-prof writes the profile (written when the hub exits on SIGTERM). */
  profileDir?: string;
  jwtSecret: string;
  /** false: METRICS_ENABLED=false (nothing counted, /metrics answers 404). Default: on, as in production. */
  metrics?: boolean;
}

export const newJwtSecret = () => randomBytes(24).toString('hex');

export const ADMIN = { username: 'admin', password: 'admin-password' };

export async function startHub(options: HubOptions): Promise<Server & { baseUrl: string }> {
  mkdirSync(options.dir, { recursive: true });
  const port = await freePort();
  const nodeFlags = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const child = spawnTs('src/main.ts', [], {
    nodeFlags,
    logFile: join(options.dir, 'hub.log'),
    env: {
      SERVER_HOST: '127.0.0.1',
      SERVER_PORT: String(port),
      DB_DRIVER: 'sqlite',
      DB_PATH: join(options.dir, 'hub.db'),
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      INITIAL_ADMIN_USER: ADMIN.username,
      INITIAL_ADMIN_PASS: ADMIN.password,
      // The bench measures throughput, not the per-socket rate limit.
      WS_RATE_LIMIT: '100000',
      WS_RATE_BURST: '100000',
      JWT_SECRET: options.jwtSecret,
      METRICS_ENABLED: options.metrics === false ? 'false' : 'true',
    },
  });
  const server = serverOf(options.metrics === false ? 'hub-no-metrics' : 'hub', child, port, '/api/ping', (token) => `ws://127.0.0.1:${port}/api/ws?token=${encodeURIComponent(String(token))}`);
  try {
    await waitForHttp(server.pingUrl, 60_000, server.alive);
  } catch (err) {
    await server.stop();
    throw new Error(`the hub did not start (see ${join(options.dir, 'hub.log')}): ${(err as Error).message}`);
  }
  return { ...server, baseUrl: `http://127.0.0.1:${port}` };
}

export async function startRawRelay(): Promise<Server> {
  const port = await freePort();
  const child = spawnTs('bench/rawRelay.ts', ['--port', String(port)]);
  const server = serverOf('raw', child, port, '/ping', (uid) => `ws://127.0.0.1:${port}/ws?uid=${uid}`);
  try {
    await waitForHttp(server.pingUrl, 30_000, server.alive);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}
