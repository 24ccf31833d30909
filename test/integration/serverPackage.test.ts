// `@agent-hub/server` as an operator gets it: `npm pack` of the workspace package (its build: the hub
// compiled, the dashboard, the migrations), installed into an empty folder from the tarball and the
// local npm cache, then its `agent-hub` command run there: --help, --version, migrate, create-admin,
// and `npx agent-hub start` answering on a free port with its dashboard, with no other step (the
// WebSocket server's glibc fix included).
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from '../helpers/db.js';
import { reservePorts } from '../helpers/ports.js';
import { startProcess, type ProcessRun } from '../helpers/processRun.js';

const run = promisify(execFile);
const root = resolve('.');
const manifest = JSON.parse(readFileSync(join(root, 'packages/server/package.json'), 'utf8')) as { version: string };
const migrations = readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sqlite.sql')).length;

/** The npm settings of the `npm test` that started us (its prefix, its workspace) must not leak into the empty folder's npm. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || keep.has(key.toLowerCase())));
}

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

describe('@agent-hub/server from its tarball', () => {
  let work: string;
  let project: string;
  let packed: PackResult;
  let installOutput = '';
  const running: ProcessRun[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hub-server-package-'));
    project = join(work, 'project');
    // prepack builds the package (tsc, and the dashboard only when dist/web is missing or stale).
    const pack = await run('npm', ['pack', '-w', '@agent-hub/server', '--pack-destination', work, '--json'], { cwd: root, env: npmEnv(), maxBuffer: 16 << 20 });
    packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackResult[])[0]!;
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'a-hub', private: true }));
    // --foreground-scripts shows the install steps' output: the package's own is the uWebSockets.js fix.
    const install = await run('npm', ['install', join(work, packed.filename), '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts'], {
      cwd: project,
      env: npmEnv(),
      maxBuffer: 16 << 20,
    });
    installOutput = install.stdout + install.stderr;
  }, 300_000);

  // npx runs the command under a shell and does not pass a signal on: each run is a process group of
  // its own, signalled whole, as a terminal's Ctrl-C signals npx, the shell and the hub together.
  const signal = (r: ProcessRun, name: NodeJS.Signals) => {
    try {
      process.kill(-r.child.pid!, name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };

  afterEach(() => {
    for (const r of running.splice(0)) signal(r, 'SIGKILL');
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The installed command as an operator runs it, in the folder it was installed in. */
  const agentHub = (args: string[], options: { env?: Record<string, string>; input?: string } = {}) => {
    const r = startProcess('npx', ['--no-install', 'agent-hub', ...args], {
      cwd: project,
      env: { ...npmEnv(), LOG_FORMAT: 'json', ...options.env },
      input: options.input,
      detached: true,
    });
    running.push(r);
    return r;
  };

  it('holds the compiled hub with its declarations, its dashboard, its migrations and the command, and nothing of the client, the test kit or the sources', () => {
    const paths = packed.files.map((f) => f.path);
    for (const path of paths)
      expect(path).toMatch(
        /^(?:package\.json|README\.md|bin\/agent-hub\.js|bin\/install\.mjs|dist\/fix-uws-glibc\.mjs|dist\/migrations\/[\w.]+\.sql|dist\/src\/[\w/]+\.(?:js|d\.ts)|dist\/web\/.+|dist\/vendor\/ultimate-express\/(?:package\.json|LICENSE|EXPRESS_LICENSE|src\/\w+\.(?:js|d\.ts)))$/,
      );
    expect(paths).toEqual(
      expect.arrayContaining([
        'README.md',
        'bin/agent-hub.js',
        'dist/src/server/cli.js',
        'dist/src/hub.js',
        'dist/web/index.html',
        'dist/migrations/0001_initial.sqlite.sql',
      ]),
    );
    expect(paths.filter((p) => /^dist\/src\/(?:client|cli|examples|testing)\//.test(p))).toEqual([]);
    expect(paths).toContain('dist/src/hub.d.ts');
    // ultimate-express is vendored (see packages/server/build.mjs): nothing installed comes from GitHub.
    expect(existsSync(join(project, 'node_modules/ultimate-express'))).toBe(false);
    const uws = JSON.parse(readFileSync(join(project, 'node_modules/uWebSockets.js/package.json'), 'utf8')) as { name: string; version: string };
    expect(uws).toMatchObject({ name: '@btc-vision/uwebsockets.js', version: '20.57.0' });
    expect(readdirSync(join(project, 'node_modules/@agent-hub'))).toEqual(['server']);
  });

  it("runs the WebSocket server's glibc fix as its install step", () => {
    expect(installOutput).toContain(`@agent-hub/server@${manifest.version} postinstall`);
    // On Linux the running Node's binary loads after it: patched (glibc before 2.38), or nothing to fix.
    if (process.platform === 'linux')
      expect(installOutput).toMatch(
        new RegExp(`^uWebSockets\\.js: uws_linux_${process.arch}_${process.versions.modules}\\.node (?:now loads|loads on glibc)`, 'm'),
      );
  });

  it('answers --version and --help, and calls a missing or unknown command a usage mistake', async () => {
    const version = agentHub(['--version']);
    expect(await version.exit()).toBe(0);
    expect(version.stdout).toEqual([manifest.version]);
    // `npx @agent-hub/server` runs the package's one command too.
    const byPackage = startProcess('npx', ['--no-install', '@agent-hub/server', '--version'], { cwd: project, env: npmEnv() });
    expect(await byPackage.exit()).toBe(0);
    expect(byPackage.stdout).toEqual([manifest.version]);

    const help = agentHub(['--help']);
    expect(await help.exit()).toBe(0);
    const text = help.stdout.join('\n');
    for (const command of ['start', 'migrate', 'create-admin <username>']) expect(text).toMatch(new RegExp(`^  ${command} `, 'm'));
    expect(text).toContain('SERVER_PORT');

    const none = agentHub([]);
    expect(await none.exit()).toBe(2);
    expect(none.stderr.join('\n')).toContain('Usage: agent-hub');
    // The commands read the configuration as start does, and refuse a wrong one in a few lines, not a stack trace.
    for (const command of ['migrate', 'start']) {
      const refused = agentHub([command], { env: { APP_ENV: 'production' } });
      expect(await refused.exit(30_000)).toBe(1);
      expect(refused.stderr).toContain('  - JWT_SECRET of at least 32 characters is required in production');
      expect(refused.stderr.join('\n')).not.toMatch(/\bat \S+ \(/);
    }
    const unknown = agentHub(['serve']);
    expect(await unknown.exit()).toBe(2);
    expect(unknown.stderr[0]).toBe("error: unknown command 'serve'");
  }, 60_000);

  it('migrates an empty folder, adds the first admin, and starts with it: /api/ping, the dashboard, a login', async () => {
    const migrate = agentHub(['migrate']);
    expect(await migrate.exit(30_000)).toBe(0);
    expect(migrate.stdout.at(-1)).toBe(`${migrations} applied: ${migrations} migrations in ${join(project, 'data/hub.db')}`);
    const again = agentHub(['migrate']);
    expect(await again.exit(30_000)).toBe(0);
    expect(again.stdout).toEqual([`up to date: ${migrations} migrations in ${join(project, 'data/hub.db')}`]);

    const short = agentHub(['create-admin', 'ops'], { input: 'short\n' });
    expect(await short.exit(30_000)).toBe(1);
    expect(short.stderr).toEqual(['agent-hub: the password must be at least 8 characters']);
    const admin = agentHub(['create-admin', 'ops'], { input: 'a long passphrase\n' });
    expect(await admin.exit(30_000)).toBe(0);
    expect(admin.stdout).toEqual(['created the admin ops (id 1) and Butler (id 2) in the empty database']);
    const taken = agentHub(['create-admin', 'ops'], { input: 'another passphrase\n' });
    expect(await taken.exit(30_000)).toBe(1);
    expect(taken.stderr).toEqual(['agent-hub: a user named "ops" already exists']);

    const port = await reservePorts();
    const base = `http://127.0.0.1:${port}`;
    const hub = agentHub(['start'], { env: { SERVER_HOST: '127.0.0.1', SERVER_PORT: String(port) } });
    await hub.line('stdout', /"msg":"hub listening on /, 60_000);
    expect(await (await fetch(`${base}/api/ping`)).json()).toEqual({ message: 'pong' });
    const page = await fetch(`${base}/agents`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    // The dashboard's files are the package's own build.
    expect(hub.stdout.some((l) => l.includes('"msg":"dashboard loaded"') && l.includes(join('node_modules/@agent-hub/server/dist/web')))).toBe(true);

    const login = (username: string, password: string) =>
      fetch(`${base}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username, password }) });
    const ops = await login('ops', 'a long passphrase');
    expect(ops.status).toBe(200);
    expect(await ops.json()).toMatchObject({ token: expect.any(String), user: { id: 1, username: 'ops', role: 'ADMIN' } });
    // The admin was made by create-admin: the development default was never created.
    expect((await login('admin', 'admin123')).status).toBe(401);
    expect(existsSync(join(project, 'data/jwt-secret'))).toBe(true);

    signal(hub, 'SIGTERM');
    await hub.line('stdout', /"msg":"stopped cleanly"/, 30_000);
    await hub.exit(30_000);
    expect(await fetch(`${base}/api/ping`).catch((err: unknown) => err)).toBeInstanceOf(TypeError);
  }, 120_000);

  it.skipIf(!inject('pgUrl'))(
    'migrates a PostgreSQL database and adds admins to it: the first with Butler, then one more',
    async () => {
      const db = await createTestDatabase('postgres');
      try {
        const migrate = agentHub(['migrate'], { env: db.env });
        expect(await migrate.exit(30_000)).toBe(0);
        expect(migrate.stdout.at(-1)).toBe(`${migrations} applied: ${migrations} migrations in PostgreSQL`);
        const first = agentHub(['create-admin', 'ops'], { env: db.env, input: 'a long passphrase\n' });
        expect(await first.exit(30_000)).toBe(0);
        expect(first.stdout).toEqual(['created the admin ops (id 1) and Butler (id 2) in the empty database']);
        const second = agentHub(['create-admin', 'night-shift'], { env: db.env, input: 'another long passphrase\n' });
        expect(await second.exit(30_000)).toBe(0);
        expect(second.stdout).toEqual(['created the admin night-shift (id 3)']);

        const client = new pg.Client({ connectionString: db.env.DATABASE_URL });
        await client.connect();
        try {
          const { rows } = await client.query<{ id: number; username: string; role: string; hashed: boolean }>(
            'SELECT u.id::int AS id, u.username, u.role, c.password_hash IS NOT NULL AS hashed FROM users u LEFT JOIN human_credentials c ON c.user_id = u.id ORDER BY u.id',
          );
          expect(rows).toEqual([
            { id: 1, username: 'ops', role: 'ADMIN', hashed: true },
            { id: 2, username: 'Butler', role: 'BUTLER', hashed: false },
            { id: 3, username: 'night-shift', role: 'ADMIN', hashed: true },
          ]);
        } finally {
          await client.end();
        }
      } finally {
        await db.drop();
      }
    },
    120_000,
  );
});
