// Starting and stopping the servers under test, each in its own child process with the event-loop
// probe preloaded: the hub (src/main.ts on a scratch store), and the two references that relay the
// same targeted frames without a store: bare uWebSockets.js and Socket.IO.
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort, waitForHttp } from './net.js';
import { RpcClient } from './rpc.js';
import { spawnTs, stopChild } from './spawn.js';
import type { ScratchStore } from './stores.js';

export type ServerKind = 'hub' | 'raw' | 'socketio' | 'httpRef';

/** Event-loop delay (ms beyond the probe's 10 ms tick) and utilisation (0..1), since the last reading. */
export interface LoopLag {
  p50: number;
  p99: number;
  max: number;
  mean: number;
  utilisation: number;
}

/** process.memoryUsage() of a server, in bytes, read by its probe. */
export interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
}

/** How a generator reaches a server: a plain WebSocket, or a Socket.IO client. */
export type Transport = 'ws' | 'socketio';

export interface Server {
  kind: ServerKind;
  transport: Transport;
  pid: number;
  port: number;
  /** Answers 200 on the server's event loop (readiness, and a round trip seen from outside). */
  pingUrl: string;
  /** Connection URL for one user: `credential` is a token on the hub, a user id on the references. */
  socketUrl(credential: string | number): string;
  /** Event-loop lag since the previous call (the probe resets on each reading). */
  loop(): Promise<LoopLag>;
  /** Its JS heap and external memory (the probe's process.memoryUsage()). */
  memory(): Promise<Memory>;
  alive(): boolean;
  stop(): Promise<void>;
  /** Sends `signal` and resolves with how the process ended (a crash test's kill -9, a SIGTERM's exit code). */
  kill(signal: NodeJS.Signals): Promise<Exit>;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const ROOT = resolve(import.meta.dirname, '..', '..');
const PROBE = pathToFileURL(join(ROOT, 'bench', 'servers', 'probe.ts')).href;

interface Started {
  kind: ServerKind;
  transport: Transport;
  script: string;
  /** Command-line arguments, given the port to listen on (the hub reads SERVER_PORT instead). */
  args?: (port: number) => string[];
  env?: NodeJS.ProcessEnv;
  nodeFlags?: string[];
  logFile?: string;
  pingPath: string;
  socketUrl(port: number, credential: string | number): string;
  startTimeoutMs: number;
  /** Listen here (a restart on the port clients reconnect to); a free port when absent. */
  port?: number;
}

async function startServer(s: Started): Promise<Server> {
  const port = s.port ?? (await freePort());
  const child: ChildProcess = spawnTs(s.script, s.args?.(port) ?? [], {
    nodeFlags: [...(s.nodeFlags ?? []), '--import', PROBE],
    env: { ...s.env, SERVER_PORT: String(port) },
    logFile: s.logFile,
    ipc: true,
    cwd: ROOT,
  });
  const rpc = new RpcClient(child, s.kind);
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }) as Exit);
  const server: Server = {
    kind: s.kind,
    transport: s.transport,
    pid: child.pid!,
    port,
    pingUrl: `http://127.0.0.1:${port}${s.pingPath}`,
    socketUrl: (credential) => s.socketUrl(port, credential),
    loop: () => rpc.call<LoopLag>('loop', {}, 10_000),
    memory: () => rpc.call<Memory>('memory', {}, 10_000),
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: () => stopChild(child),
    kill(signal) {
      if (server.alive()) child.kill(signal);
      return exited;
    },
  };
  try {
    await waitForHttp(server.pingUrl, s.startTimeoutMs, server.alive);
  } catch (err) {
    await server.stop();
    throw new Error(`${s.kind} did not start${s.logFile ? ` (see ${s.logFile})` : ''}: ${(err as Error).message}`);
  }
  // Readings cover what happens after start-up.
  await server.loop();
  return server;
}

export const newJwtSecret = () => randomBytes(24).toString('hex');

export const ADMIN = { username: 'admin', password: 'admin-password' };

export interface HubOptions {
  store: ScratchStore;
  /** Folder for the hub's log. */
  logDir: string;
  jwtSecret: string;
  /** Where --cpu-prof writes the profile (written when the hub exits on SIGTERM). */
  profileDir?: string;
  /** Extra environment (the scenario's, then the command line's --hub-env), applied last. */
  hubEnv: Record<string, string>;
  /** The hub's entry point (default src/main.ts through tsx; a built dist/src/main.js runs as it is). */
  script?: string;
  /** Keep the hub's per-socket rate limit (the bench lifts it: it measures throughput). */
  rateLimited?: boolean;
  /** See `Started.port`. */
  port?: number;
}

export type Hub = Server & { baseUrl: string };

export async function startHub(options: HubOptions): Promise<Hub> {
  mkdirSync(options.logDir, { recursive: true });
  const server = await startServer({
    kind: 'hub',
    transport: 'ws',
    script: options.script ?? 'src/main.ts',
    port: options.port,
    nodeFlags: options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [],
    logFile: join(options.logDir, 'hub.log'),
    env: {
      SERVER_HOST: '127.0.0.1',
      ...options.store.env,
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      INITIAL_ADMIN_USER: ADMIN.username,
      INITIAL_ADMIN_PASS: ADMIN.password,
      // The bench measures throughput, not the per-socket rate limit.
      ...(options.rateLimited ? {} : { WS_RATE_LIMIT: '1000000', WS_RATE_BURST: '1000000' }),
      JWT_SECRET: options.jwtSecret,
      ...options.hubEnv,
    },
    pingPath: '/api/ping',
    socketUrl: (port, token) => `ws://127.0.0.1:${port}/api/ws?token=${encodeURIComponent(String(token))}`,
    startTimeoutMs: 60_000,
  });
  return { ...server, baseUrl: `http://127.0.0.1:${server.port}` };
}

/** A reference relay: `script` listens on `--port` and answers `/ping`; it trusts the user id it is given. */
const startRelay = (kind: ServerKind, transport: Transport, script: string, socketUrl: Started['socketUrl']) =>
  startServer({ kind, transport, script, args: (port) => ['--port', String(port)], pingPath: '/ping', socketUrl, startTimeoutMs: 30_000 });

/** The ceiling: bare uWebSockets.js, no actors, no validation, no store. */
export const startRawRelay = () => startRelay('raw', 'ws', 'bench/servers/rawRelay.ts', (port, uid) => `ws://127.0.0.1:${port}/ws?uid=${uid}`);

/** What a team might pick instead: a Socket.IO server on node:http, one room per user, no store. */
export const startSocketioRelay = () =>
  startRelay('socketio', 'socketio', 'bench/servers/socketioRelay.ts', (port, uid) => `http://127.0.0.1:${port}/?uid=${uid}`);

/** The HTTP reference: bare ultimate-express routes doing the hub's SQL on the hub's SQLite file (`dbPath`). */
export const startHttpReference = (dbPath: string) =>
  startServer({
    kind: 'httpRef',
    transport: 'ws',
    script: 'bench/servers/httpReference.ts',
    args: (port) => ['--port', String(port), '--db', dbPath],
    pingPath: '/ping',
    socketUrl: () => {
      throw new Error('the HTTP reference has no sockets');
    },
    startTimeoutMs: 30_000,
  });
