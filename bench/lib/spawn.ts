// Child processes of the bench: the hub, the raw relay and the load generators. Each runs TypeScript
// through tsx, behind `bash -c 'ulimit -n <hard>; exec node ...'` so it may open as many sockets as
// the machine allows (exec keeps the pid, so /proc/<pid> is the node process itself).
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { RpcClient } from './rpc.js';

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** Extra node flags (e.g. --cpu-prof), after tsx is registered (so `--import x.ts` works). */
  nodeFlags?: string[];
  /** File for the child's stdout and stderr; inherited when absent. */
  logFile?: string;
  /** Open an IPC channel (load generators). */
  ipc?: boolean;
  cwd?: string;
}

const RAISE_FD_LIMIT = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"';

export function spawnTs(script: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const out = options.logFile ? openSync(options.logFile, 'a') : 'inherit';
  const stdio: StdioOptions = ['ignore', out, out];
  if (options.ipc) stdio.push('ipc');
  return spawn('bash', ['-c', RAISE_FD_LIMIT, process.execPath, '--import', 'tsx', ...(options.nodeFlags ?? []), script, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio,
  });
}

/** Asks a child to stop with SIGTERM, then SIGKILL after `graceMs`. Resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A load generator: a child process answering RPC calls. */
export class Generator {
  readonly rpc: RpcClient;
  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    this.rpc = new RpcClient(child, name);
  }

  static async start(name: string, script: string): Promise<Generator> {
    const gen = new Generator(name, spawnTs(script, [], { ipc: true }));
    // The first call doubles as the readiness check (tsx compiles the script first).
    await gen.rpc.call('hello', {}, 30_000);
    return gen;
  }

  get pid(): number {
    return this.child.pid!;
  }

  call<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    return this.rpc.call<R>(method, params, timeoutMs);
  }

  stop(): Promise<void> {
    if (this.child.connected) this.child.disconnect();
    return stopChild(this.child, 5_000);
  }
}
