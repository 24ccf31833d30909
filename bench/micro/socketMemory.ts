// What one idle agent socket costs the hub, measured inside it: the real hub (SQLite in a temp
// folder) in this process, N agent sockets from a child process (each announced once with an
// acknowledged SYSTEM_LOG), and the heap, external memory and RSS before and after, each after a
// full GC. Also the kernel's TCP memory (/proc/net/sockstat, both ends on this machine).
//   node --expose-gc --import tsx bench/micro/socketMemory.ts [sockets=4000] [agents=100]
// SM_SNAPSHOT=/tmp/x writes heap snapshots before and after (/tmp/x-0.heapsnapshot, -1).
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import WebSocket from 'ws';
import { parseConfig } from '../../src/config.js';
import { startHub } from '../../src/hub.js';
import { createLogger } from '../../src/logger.js';

const arg = (i: number, fallback: number) => Number(process.argv[2 + i] ?? fallback);
const [sockets, agents] = [arg(0, 4000), arg(1, 100)];

if (process.env.SM_URLS) {
  const urls = JSON.parse(process.env.SM_URLS) as string[];
  const keep: WebSocket[] = [];
  let acked = 0;
  const started = performance.now();
  let next = 0;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const i = next++;
      if (i >= sockets) return resolve();
      const ws = new WebSocket(urls[i % urls.length]!, { perMessageDeflate: false, localAddress: `127.0.${1 + (i % 4)}.1` });
      ws.on('error', reject);
      ws.on('open', () => ws.send(JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'idle' }, local_id: `m.${i}` })));
      ws.on('message', () => {
        acked++;
        resolve(one());
      });
      keep.push(ws);
    });
  await Promise.all(Array.from({ length: 64 }, one));
  process.send!({ acked, ms: performance.now() - started });
  process.on('message', () => process.exit(0));
} else {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const sockstatMemPages = () => Number(/TCP: .* mem (\d+)/.exec(readFileSync('/proc/net/sockstat', 'utf8'))?.[1] ?? NaN);
  /** Bytes in the kernel slabs a TCP socket's file uses (socket, inode, file, dentry, epoll entry). */
  const slabBytes = () => {
    let bytes = 0;
    for (const line of readFileSync('/proc/slabinfo', 'utf8').split('\n')) {
      const [name, active, , size] = line.split(/\s+/);
      if (['TCP', 'sock_inode_cache', 'filp', 'dentry', 'epitem', 'eppoll_entry'].includes(name!)) bytes += Number(active) * Number(size);
    }
    return bytes;
  };
  const sample = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return { heap: m.heapUsed, external: m.external, rss: m.rss, tcpPages: sockstatMemPages(), slab: slabBytes() };
  };
  const dir = mkdtempSync(join(tmpdir(), 'socket-memory-'));
  const config = parseConfig({
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: '0',
    JWT_SECRET: 'x'.repeat(64),
    INITIAL_ADMIN_USER: 'admin',
    INITIAL_ADMIN_PASS: 'admin-password',
    LOG_LEVEL: 'warn',
    WEB_DIR: '',
    DB_PATH: join(dir, 'hub.db'),
  });
  const hub = await startHub({ config, logger: createLogger('warn', process.stderr), passwordCost: 1024 });
  const base = `http://127.0.0.1:${hub.port}`;
  const post = async (path: string, body: unknown, token?: string) =>
    (await (
      await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, string>;
  const { token } = await post('/api/auth/login', { username: 'admin', password: 'admin-password' });
  const urls: string[] = [];
  for (let i = 0; i < agents; i++)
    urls.push(`ws://127.0.0.1:${hub.port}/api/ws?token=${(await post('/api/users/agents', { username: `idle-${i}` }, token)).api_token}`);
  const before = sample();
  if (process.env.SM_SNAPSHOT) v8.writeHeapSnapshot(`${process.env.SM_SNAPSHOT}-0.heapsnapshot`);
  const child = fork(new URL(import.meta.url).pathname, process.argv.slice(2), {
    env: { ...process.env, SM_URLS: JSON.stringify(urls) },
    execArgv: ['--import', 'tsx'],
  });
  const done = await new Promise<{ acked: number; ms: number }>((resolve) => child.once('message', resolve as (m: unknown) => void));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = sample();
  if (process.env.SM_SNAPSHOT) v8.writeHeapSnapshot(`${process.env.SM_SNAPSHOT}-1.heapsnapshot`);
  const per = (k: keyof typeof before) => (after[k] - before[k]) / sockets;
  console.log(
    `${sockets} sockets (${done.acked} acknowledged) at ${Math.round((sockets * 1000) / done.ms)}/s: per socket heap ${per('heap').toFixed(0)} B, ` +
      `external ${per('external').toFixed(0)} B, RSS ${(per('rss') / 1024).toFixed(2)} KB; kernel TCP memory ${((per('tcpPages') * 4096) / 1024).toFixed(2)} KB per socket pair ` +
      `(${after.tcpPages - before.tcpPages} pages of 4 KB for ${sockets} connections, both ends); kernel slabs (socket, inode, file, dentry, epoll) ` +
      `${(per('slab') / 2 / 1024).toFixed(2)} KB per end (/proc/slabinfo, both ends on this machine, halved)`,
  );
  child.send('bye');
  await hub.stop();
  process.exit(0);
}
