// Starts several hub nodes on this machine as one cluster: consecutive ports from --port, one
// PostgreSQL database and one Redis, every log line prefixed with its node's id. Ctrl-C (or
// SIGTERM) stops them all cleanly.
//
//   npm run cluster -- --nodes 3 [--port 8080]
//
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/hub, created when missing) and
// REDIS_URL (default redis://127.0.0.1:6379) come from the environment, as do all other settings.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const COLOURS = [36, 33, 35, 32, 34, 31];
const READY_TIMEOUT_MS = 60_000;

const usage = 'usage: npm run cluster -- [--nodes N] [--port FIRST_PORT]';
const { values } = parseArgs({
  options: { nodes: { type: 'string', default: '3' }, port: { type: 'string', default: '8080' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const count = Number(values.nodes);
const firstPort = Number(values.port);
if (!Number.isInteger(count) || count < 1 || count > 32) fail(`--nodes must be a whole number from 1 to 32 (got "${values.nodes}")\n${usage}`);
if (!Number.isInteger(firstPort) || firstPort < 1 || firstPort + count - 1 > 65535) fail(`--port must be a port number (got "${values.port}")\n${usage}`);

const databaseUrl = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/hub';
const redisUrl = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';
const tty = process.stdout.isTTY === true;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function say(text: string): void {
  process.stdout.write(`${tty ? '\x1b[1m' : ''}cluster${tty ? '\x1b[0m' : ''} ${text}\n`);
}

/** Creates the database when the server is up but the database is not there yet. */
async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const probe = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return;
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw new Error(`PostgreSQL at ${redact(url)} is not reachable: ${(err as Error).message}`);
  } finally {
    await probe.end().catch(() => undefined);
  }
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: adminUrl.toString(), connectionTimeoutMillis: 3000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    say(`created database ${name}`);
  } finally {
    await admin.end();
  }
}

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

interface Node {
  id: string;
  port: number;
  child: ChildProcess;
  exited: Promise<number | null>;
}

const nodes: Node[] = [];
let stopping = false;

function startNode(index: number): Node {
  const id = `n${index + 1}`;
  const port = firstPort + index;
  const colour = COLOURS[index % COLOURS.length]!;
  const prefix = tty ? `\x1b[${colour}m${id.padEnd(4)}\x1b[0m` : id.padEnd(4);
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      NODE_ID: id,
      SERVER_PORT: String(port),
      DB_DRIVER: 'postgres',
      DATABASE_URL: databaseUrl,
      REDIS_URL: redisUrl,
      // The children write to a pipe; keep the coloured lines when this script is at a terminal.
      LOG_FORMAT: process.env['LOG_FORMAT'] ?? (tty ? 'pretty' : 'json'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${prefix} ${line}\n`));
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code, signal) => {
      if (!stopping) say(`${id} exited (${signal ?? code}); the other nodes keep running`);
      resolve(code);
    });
  });
  return { id, port, child, exited };
}

/** Resolves once the node answers /api/ready with 200; rejects if it exits first. */
async function waitReady(node: Node): Promise<void> {
  let gone = false;
  void node.exited.then(() => (gone = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!gone && Date.now() < deadline) {
    const status = await fetch(`http://127.0.0.1:${node.port}/api/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(gone ? `${node.id} exited while starting (see its lines above)` : `${node.id} was not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

async function stopAll(code: number): Promise<never> {
  stopping = true;
  const running = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
  if (running.length > 0) say(`stopping ${running.map((n) => n.id).join(', ')}…`);
  for (const node of running) node.child.kill('SIGTERM');
  const results = await Promise.all(nodes.map((n) => n.exited));
  say('all nodes stopped');
  process.exit(code !== 0 ? code : results.every((r) => r === 0 || r === null) ? 0 : 1);
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  say(`${count} node${count === 1 ? '' : 's'} on ports ${firstPort}–${firstPort + count - 1}, PostgreSQL ${redact(databaseUrl)}, Redis ${redact(redisUrl)}`);
  await ensureDatabase(databaseUrl);
  // The first node migrates the database (and, in development, makes the shared JWT secret in
  // ./data) alone; the others then start side by side.
  const started = performance.now();
  const launch = async (indexes: number[]) => {
    const batch = indexes.map((index) => {
      say(`starting n${index + 1} on http://localhost:${firstPort + index}…`);
      const node = startNode(index);
      nodes.push(node);
      return node;
    });
    await Promise.all(
      batch.map(async (node) => {
        await waitReady(node);
        say(`${node.id} ready (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      }),
    );
  };
  await launch([0]);
  if (stopping) return;
  await launch(Array.from({ length: count - 1 }, (_, k) => k + 1));
  if (stopping) return;
  say(`${count} node${count === 1 ? '' : 's'} ready: ${nodes.map((n) => `http://localhost:${n.port}`).join(' ')} — Ctrl-C stops them all`);
}

main().catch((err: unknown) => {
  say(`cannot start: ${err instanceof Error ? err.message : String(err)}`);
  void stopAll(1);
});
