// A cluster of real hub processes for tests: N nodes (`node --import tsx src/main.ts`, each its own
// process on its own fixed port) on one fresh PostgreSQL database and one Redis, with JSON logs
// captured per node so tests wait on log lines. Also a private redis-server that a test may stop
// and restart without disturbing the other tests on the shared Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTestDatabase, type Driver, type TestDatabase } from './db.js';
import { apiClient, type ApiClient } from './http.js';
import { reservePorts } from './ports.js';
import { uniqueName } from './hub.js';

/** The Redis the tests share (`.ci/run` starts it); TEST_REDIS_URL points elsewhere. */
export const SHARED_REDIS_URL = process.env['TEST_REDIS_URL'] || 'redis://127.0.0.1:6379';

export const HUB_MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
// The tsx loader, resolved from the project (a node's cwd may be elsewhere).
const TSX = pathToFileURL(createRequire(HUB_MAIN).resolve('tsx/esm')).href;

export type LogLine = Record<string, unknown>;

/** Log lines of one process, with waits that end on the line's arrival or the process's exit. */
class LogTail {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  private waiters: Array<{ predicate: (l: LogLine) => boolean; resolve: (l: LogLine) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }> = [];

  constructor(private readonly label: string) {}

  follow(child: ChildProcess): void {
    createInterface({ input: child.stdout! }).on('line', (text) => this.push(text));
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString('utf8')));
  }

  private push(text: string): void {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text, raw: true };
    }
    this.lines.push(line);
    for (const w of [...this.waiters]) {
      if (w.predicate(line)) this.settle(w).resolve(line);
    }
  }

  private settle(w: (typeof this.waiters)[number]) {
    clearTimeout(w.timer);
    this.waiters.splice(this.waiters.indexOf(w), 1);
    return w;
  }

  /** The first line matching (already logged, or from `since` on), within `timeoutMs`. */
  wait(predicate: (l: LogLine) => boolean, description: string, timeoutMs: number, since = 0): Promise<LogLine> {
    const seen = this.lines.slice(since).find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = {
        predicate,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.settle(w).reject(new Error(`${this.label}: timed out after ${timeoutMs} ms waiting for ${description}; last lines: ${this.tail()}`));
        }, timeoutMs),
      };
      this.waiters.push(w);
    });
  }

  /** How the process ended ("exit code 1", "signal SIGKILL"), once it has. */
  ending: string | undefined;

  /** Fails every wait: the process is gone (called once its output is read to the end). */
  exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.ending = signal ? `signal ${signal}` : `exit code ${code}`;
    for (const w of [...this.waiters]) this.settle(w).reject(new Error(`${this.label} exited (${signal ?? code}) before the awaited log line; ${this.tail()}`));
  }

  /** The spawn itself failed (no such executable, say): a process that never ran. */
  failed(err: Error): void {
    this.ending = `spawn error: ${err.message}`;
    for (const w of [...this.waiters]) this.settle(w).reject(new Error(`${this.label} could not be spawned (${err.message})`));
  }

  /** The last log lines and the end of stderr: what a failure says about why. */
  tail(): string {
    const last = this.lines.slice(-8).map((l) => String(l['msg']));
    return `last log lines: ${JSON.stringify(last)}; stderr: ${this.stderr.join('').slice(-2000) || '(empty)'}`;
  }
}

export interface ClusterNode {
  /** NODE_ID: n1, n2, ... */
  readonly id: string;
  readonly port: number;
  readonly url: string;
  readonly api: ApiClient;
  /** The running process's pid (undefined while stopped). */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** This node's log lines since its first start (restarts append). */
  readonly logs: LogLine[];
  /** Resolves with the first log line matching (from `since`, an index into `logs`; default all). */
  waitForLog(predicate: (line: LogLine) => boolean, options?: { description?: string; timeoutMs?: number; since?: number }): Promise<LogLine>;
  /** Sends `signal` (default SIGKILL) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops it if running (SIGTERM), starts it again on the same port with `env` over the cluster's, waits until ready. */
  restart(env?: Record<string, string>): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** The store: PostgreSQL (the default), or a SQLite file for one node alone (a single hub: no Redis, no cluster). */
  driver?: Driver;
  /** Settings for every node over the harness's (REDIS_URL defaults to the shared Redis). */
  env?: Record<string, string>;
  /** Settings of one node (0-based index) over `env`. */
  nodeEnv?: (index: number) => Record<string, string>;
}

export interface TestCluster {
  readonly nodes: ClusterNode[];
  /** CLUSTER_NAME: unique per cluster, so clusters of parallel tests never share keys or channels. */
  readonly name: string;
  readonly jwtSecret: string;
  /** DB_DRIVER and DATABASE_URL (or DB_PATH) of the cluster's database. */
  readonly dbEnv: Record<string, string>;
  /** PostgreSQL's URL (empty on SQLite). */
  readonly databaseUrl: string;
  /** The bootstrap admin's token (logged in on node 1). */
  readonly adminToken: string;
  login(username: string, password: string, node?: ClusterNode): Promise<string>;
  createMember(options?: { role?: 'MEMBER' | 'ADMIN' }): Promise<{ id: number; username: string; token: string }>;
  createAgent(username?: string): Promise<{ id: number; username: string; api_token: string }>;
  /** Stops every node (SIGTERM, then SIGKILL after a grace) and drops the database. */
  stop(): Promise<void>;
}

export const ADMIN = { username: 'admin', password: 'admin-password' } as const;
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;

/** A node with the harness's own controls: the first start, and the stop at the end. */
type ManagedNode = ClusterNode & { start(): Promise<void>; shutdown(): Promise<void> };

function startNode(id: string, port: number, baseEnv: Record<string, string>): ManagedNode {
  const url = `http://127.0.0.1:${port}`;
  const tail = new LogTail(`node ${id}`);
  let child: ChildProcess | undefined;
  let exit: Promise<void> = Promise.resolve();
  let env = baseEnv;

  const spawnIt = () => {
    const c = spawn(process.execPath, ['--import', TSX, HUB_MAIN], {
      env: { PATH: process.env['PATH'] ?? '', ...env, NODE_ID: id, SERVER_HOST: '127.0.0.1', SERVER_PORT: String(port), LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    tail.ending = undefined;
    tail.follow(c);
    exit = new Promise((resolve) => {
      // 'close', not 'exit': it comes once stdout and stderr are read to the end, so a failure
      // carries the process's last words (a fatal line, a stack) instead of racing them.
      c.on('close', (code, signal) => {
        if (child === c) child = undefined;
        tail.exited(code, signal);
        resolve();
      });
      c.on('error', (err) => {
        if (child === c) child = undefined;
        tail.failed(err);
        resolve();
      });
    });
  };

  const untilExit = async (signal: NodeJS.Signals, graceMs?: number) => {
    const c = child;
    if (!c) return;
    const done = exit;
    c.kill(signal);
    const timer = graceMs === undefined ? undefined : setTimeout(() => c.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  };

  const node: ManagedNode = {
    id,
    port,
    url,
    api: apiClient(url),
    get pid() {
      return child?.pid;
    },
    get running() {
      return child !== undefined;
    },
    logs: tail.lines,
    waitForLog(predicate, options = {}) {
      return tail.wait(predicate, options.description ?? 'a matching log line', options.timeoutMs ?? 10_000, options.since ?? 0);
    },
    kill(signal = 'SIGKILL') {
      return untilExit(signal);
    },
    async restart(nextEnv) {
      await untilExit('SIGTERM', STOP_GRACE_MS);
      if (nextEnv) env = { ...baseEnv, ...nextEnv };
      await node.start();
    },
    /**
     * Spawns the process and resolves once it listens and /api/ready answers 200. A node that does
     * not come up fails the start with how its process ended (or that it still runs) and its last words.
     */
    async start() {
      const since = tail.lines.length;
      spawnIt();
      const startedExit = exit;
      const notStarted = (err: unknown): Error => {
        const how = tail.ending ?? `still running (pid ${child?.pid})`;
        return new Error(`node ${id} did not start: ${how}; ${tail.tail()}`, { cause: err });
      };
      try {
        await tail.wait((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('hub listening on'), 'hub listening', READY_TIMEOUT_MS, since);
        // A node that dies after listening fails here at once, not after the readiness timeout.
        const ended = startedExit.then(() => {
          throw new Error('the process ended before it was ready');
        });
        ended.catch(() => undefined);
        await Promise.race([waitReady(url), ended]);
      } catch (err) {
        throw notStarted(err);
      }
    },
    shutdown() {
      return untilExit('SIGTERM', STOP_GRACE_MS);
    },
  };
  return node;
}

/**
 * Readiness over HTTP. Listening comes first, so this normally answers at once; a node still joining
 * (a degraded dependency) answers 503 with the reason, asked again every 100 ms until it is ready.
 */
async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = '';
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/api/ready`).catch((err: Error) => ({ status: 0, text: () => Promise.resolve(err.message) }));
    if (res.status === 200) return;
    last = `${res.status} ${await res.text()}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url}/api/ready did not answer 200 within ${READY_TIMEOUT_MS} ms (last: ${last})`);
}

/** Starts `options.nodes` hub processes on one fresh PostgreSQL database and Redis (or one on a SQLite file). */
export async function startCluster(options: ClusterOptions): Promise<TestCluster> {
  const driver = options.driver ?? 'postgres';
  if (driver === 'sqlite' && options.nodes !== 1) throw new Error('a SQLite store serves one hub alone');
  const database: TestDatabase = await createTestDatabase(driver);
  const name = uniqueName('cluster').replaceAll('-', '_');
  const jwtSecret = randomBytes(32).toString('hex');
  const common = {
    ...database.env,
    ...(driver === 'postgres' ? { REDIS_URL: SHARED_REDIS_URL, CLUSTER_NAME: name } : {}),
    JWT_SECRET: jwtSecret,
    INITIAL_ADMIN_USER: ADMIN.username,
    INITIAL_ADMIN_PASS: ADMIN.password,
    LOG_LEVEL: 'info',
    WEB_DIR: '',
    ...options.env,
  };
  const nodes: ManagedNode[] = [];
  const stopAll = async () => {
    await Promise.all(nodes.map((n) => n.shutdown()));
    await database.drop();
  };
  try {
    for (let i = 0; i < options.nodes; i += 1) {
      nodes.push(startNode(`n${i + 1}`, await reservePorts(), { ...common, ...options.nodeEnv?.(i) }));
    }
    // The first node migrates the fresh database alone; the others then start side by side.
    await nodes[0]!.start();
    await Promise.all(nodes.slice(1).map((n) => n.start()));
  } catch (err) {
    await stopAll();
    throw err;
  }

  const first = nodes[0]!;
  async function login(username: string, password: string, node: ClusterNode = first): Promise<string> {
    const res = await node.api.post('/api/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`login of ${username} on ${node.id} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  }
  const adminToken = await login(ADMIN.username, ADMIN.password);

  return {
    nodes,
    name,
    jwtSecret,
    dbEnv: database.env,
    databaseUrl: database.env['DATABASE_URL'] ?? '',
    adminToken,
    login,
    async createMember(memberOptions = {}) {
      const username = uniqueName('member');
      const res = await first.api.post('/api/users', { username, password: 'member-password', role: memberOptions.role ?? 'MEMBER' }, { token: adminToken });
      if (res.status !== 201) throw new Error(`creating ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as number, username, token: await login(username, 'member-password') };
    },
    async createAgent(username = uniqueName('agent')) {
      const res = await first.api.post('/api/users/agents', { username }, { token: adminToken });
      if (res.status !== 201) throw new Error(`registering ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as number, username, api_token: res.body.api_token as string };
    },
    stop: stopAll,
  };
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  readonly running: boolean;
  /** Stops the server (SIGTERM; `SIGKILL` for a crash) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Stops it if running, then starts it again, empty, on the same port. */
  restart(): Promise<void>;
  /** Stalls it (SIGSTOP): connections stay open, nothing is answered until `thaw`. */
  freeze(): void;
  thaw(): void;
}

/** A private redis-server on a free port, with no persistence, so a test may stop and restart it. */
export async function startRedis(): Promise<PrivateRedis> {
  const port = await reservePorts();
  let child: ChildProcess | undefined;
  let exit: Promise<void> = Promise.resolve();

  const start = async () => {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const output: string[] = [];
    const ready = new Promise<void>((resolve, reject) => {
      createInterface({ input: c.stdout! }).on('line', (line) => {
        output.push(line);
        if (line.includes('Ready to accept connections')) resolve();
      });
      c.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
      c.once('error', (err) => reject(new Error(`redis-server could not start (${err.message}): apt-get install redis-server`)));
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output.join('\n')}`)));
    });
    exit = new Promise((resolve) => {
      c.on('exit', () => {
        if (child === c) child = undefined;
        resolve();
      });
      c.on('error', () => resolve());
    });
    await ready;
  };
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    const c = child;
    if (!c) return;
    const done = exit;
    c.kill('SIGCONT'); // a frozen server would not act on SIGTERM
    c.kill(signal);
    await done;
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return child !== undefined;
    },
    stop,
    async restart() {
      await stop();
      await start();
    },
    freeze() {
      child?.kill('SIGSTOP');
    },
    thaw() {
      child?.kill('SIGCONT');
    },
  };
}
