// A private redis-server for a check that stops Redis under a cluster: on a free port, without
// persistence, so stopping and starting it again never touches the Redis anything else uses.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { freePort } from '../../bench/lib/net.js';

export interface RedisServer {
  readonly url: string;
  /** Stops it (SIGKILL by default: a crash) and resolves once it has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again, empty, on the same port. */
  start(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  async function start(): Promise<void> {
    const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    exited = new Promise((resolve) => c.once('close', () => resolve()));
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: c.stdout! }).on('line', (line) => {
        output.push(line);
        if (line.includes('Ready to accept connections')) resolve();
      });
      c.once('error', (err) => reject(new Error(`redis-server could not start: ${err.message}`)));
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output.slice(-5).join(' | ')}`)));
    });
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop(signal = 'SIGKILL') {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      child = undefined;
      c.kill(signal);
      await exited;
    },
    start,
  };
}
