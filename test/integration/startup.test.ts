// The hub as a user starts it: a real process with no environment, on the embedded store, served
// by the native uWS binary; refusing to start in production without secrets; a clean SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWs } from '../helpers/wsClient.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
// The tsx loader, resolved from the project (the hub's cwd in these tests is a temp folder).
const TSX = pathToFileURL(createRequire(MAIN).resolve('tsx/esm')).href;

interface Started {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  stderr: string[];
  /** Resolves with the first log line matching, or rejects when the process exits first. */
  waitFor(predicate: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

function startProcess(cwd: string, env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', TSX, MAIN], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  const waiters: Array<{ predicate: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void; reject: (e: Error) => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    const line = JSON.parse(text) as Record<string, unknown>;
    lines.push(line);
    for (const w of [...waiters]) {
      if (w.predicate(line)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => {
    child.on('exit', (code) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`hub exited (${code}) before the awaited log line; stderr: ${stderr.join('')}`));
      resolve(code);
    });
  });
  return {
    child,
    lines,
    stderr,
    exited,
    waitFor(predicate) {
      const seen = lines.find(predicate);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => waiters.push({ predicate, resolve, reject }));
    },
  };
}

describe('the hub process', () => {
  const cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const fn of cleanup.splice(0)) fn();
  });

  it('starts with no environment on SQLite, serves with native uWS, and stops cleanly on SIGTERM', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hub-start-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    // Port 0 only so parallel runs do not collide; everything else is the defaults.
    const hub = startProcess(cwd, { SERVER_PORT: '0' });
    cleanup.push(() => hub.child.kill('SIGKILL'));
    const ready = await hub.waitFor((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('hub listening on'));
    const port = ready['port'] as number;
    expect(ready).toMatchObject({ env: 'development', driver: 'sqlite' });
    const dashboard = (l: Record<string, unknown>) => l['msg'] === 'dashboard loaded' || String(l['msg']).startsWith('no dashboard in');
    expect(hub.lines.filter((l) => l['level'] === 'warn' && !dashboard(l)).map((l) => l['msg'])).toEqual([
      'JWT_SECRET is not set: using a generated secret kept in the data folder (development only)',
      'INITIAL_ADMIN_USER/INITIAL_ADMIN_PASS are not set: the bootstrap admin is admin/admin123 (development only)',
    ]);
    // The dashboard's folder is found from the hub's own files, not from the (temporary) working directory;
    // whether it is built or not, the hub serves.
    expect(hub.lines.find(dashboard)).toMatchObject({ dir: fileURLToPath(new URL('../../dist/web', import.meta.url)) });

    const ping = await fetch(`http://127.0.0.1:${port}/api/ping`);
    expect(await ping.json()).toEqual({ message: 'pong' });
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin123' }),
    });
    expect(login.status).toBe(200);

    // The serving process has the native binary mapped: no JavaScript fallback exists to serve instead.
    const maps = readFileSync(`/proc/${hub.child.pid}/maps`, 'utf8');
    expect(maps).toMatch(/uws_linux_x64_\d+\.node/);
    // The embedded store and the generated development secret live in ./data.
    expect(readFileSync(join(cwd, 'data', 'jwt-secret'), 'utf8').trim().length).toBeGreaterThanOrEqual(32);

    hub.child.kill('SIGTERM');
    expect(await hub.exited).toBe(0);
    expect(hub.lines.map((l) => l['msg'])).toContain('stopped cleanly');
    await expect(fetch(`http://127.0.0.1:${port}/api/ping`)).rejects.toThrow();
  });

  it('on SIGTERM closes sockets with 1001, stores every acknowledged frame and exits 0', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hub-start-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const hub = startProcess(cwd, { SERVER_PORT: '0' });
    cleanup.push(() => hub.child.kill('SIGKILL'));
    const ready = await hub.waitFor((l) => typeof l['msg'] === 'string' && (l['msg'] as string).startsWith('hub listening on'));
    const base = `http://127.0.0.1:${ready['port'] as number}`;
    const post = async (path: string, body: unknown, token?: string) =>
      (await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as Record<string, unknown>;
    const { token } = (await post('/api/auth/login', { username: 'admin', password: 'admin123' })) as { token: string };
    const { api_token } = (await post('/api/users/agents', { username: 'stopper' }, token)) as { api_token: string };
    const agent = await connectWs(base, api_token);
    const dashboard = await connectWs(base, token);

    // Frames keep going out while the hub is told to stop.
    const total = 300;
    for (let i = 0; i < total; i++) agent.send({ type: 'CHAT', payload: `m${i}`, target_id: 1, local_id: `s${i}` });
    await agent.next('ACK');
    hub.child.kill('SIGTERM');
    expect((await agent.closed()).code).toBe(1001);
    expect((await dashboard.closed()).code).toBe(1001);
    expect(await hub.exited).toBe(0);

    const acked = agent.received.filter((f) => f.type === 'ACK').map((f) => f.local_id!);
    const db = new BetterSqlite3(join(cwd, 'data', 'hub.db'), { readonly: true });
    const stored = new Set(
      (db.prepare('SELECT local_id FROM messages WHERE local_id IS NOT NULL').all() as Array<{ local_id: string }>).map((r) => r.local_id),
    );
    const agentRow = db.prepare("SELECT online, status, last_report FROM users WHERE username = 'stopper'").get();
    db.close();
    expect(acked.length).toBeGreaterThan(0);
    expect(acked.filter((id) => !stored.has(id))).toEqual([]);
    expect(agentRow).toEqual({ online: 0, status: 'OFFLINE', last_report: 'websocket_disconnected' });
  });

  it('refuses to start in production without its secrets, and says which', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'hub-start-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const hub = startProcess(cwd, { APP_ENV: 'production', SERVER_PORT: '0', JWT_SECRET: 'too-short' });
    expect(await hub.exited).toBe(1);
    const stderr = hub.stderr.join('');
    expect(stderr).toContain('The hub cannot start: invalid configuration');
    expect(stderr).toContain('JWT_SECRET of at least 32 characters is required in production');
    expect(stderr).toContain('INITIAL_ADMIN_USER and INITIAL_ADMIN_PASS are required in production');
    expect(stderr).not.toContain('too-short');
  });
});
