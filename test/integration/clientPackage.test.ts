// `@agent-hub/client` as an agent author gets it: `npm pack` of the workspace package, installed
// into an empty project from the local npm cache (no hub, no native build, no git dependency), then
// an agent written against the installed package and its `hub-agent` command run against a real hub.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubClientPool, isChatFrom } from '../helpers/hubClients.js';
import { startProcess, type ProcessRun } from '../helpers/processRun.js';

const run = promisify(execFile);
const root = resolve('.');
const packageDir = join(root, 'packages/client');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> };

/** The npm settings of the `npm test` that started us (its prefix, its workspace) must not leak into the empty project's npm. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || keep.has(key.toLowerCase())));
}

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

/** An agent author's first agent: connect, report, answer one chat, print the ACK's id, close. */
const AGENT = `
import { HubClient } from '@agent-hub/client';
const hub = new HubClient({ url: process.env.HUB_URL, token: process.env.HUB_TOKEN, reconnect: false });
hub.onChat(async (chat) => {
  const receipt = await hub.reply(chat, 'you said: ' + chat.payload);
  console.log('acked ' + receipt.id);
  await hub.close();
});
await hub.connect();
const report = await hub.report('WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3, content: 'Oslo: -3 °C' });
console.log('reported ' + report.id);
`;

describe('@agent-hub/client from its tarball', () => {
  let t: TestHub;
  let work: string;
  let project: string;
  let packed: PackResult;
  const clients = hubClientPool(() => t);
  const running: ProcessRun[] = [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hub-client-package-'));
    project = join(work, 'project');
    const [hub, pack] = await Promise.all([
      startTestHub('sqlite'),
      // prepack builds the package; --json prints the tarball's file list.
      run('npm', ['pack', '-w', '@agent-hub/client', '--pack-destination', work, '--json'], { cwd: root, env: npmEnv(), maxBuffer: 16 << 20 }),
    ]);
    t = hub;
    const json = pack.stdout.slice(pack.stdout.indexOf('['));
    packed = (JSON.parse(json) as PackResult[])[0]!;
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'an-agent', private: true, type: 'module' }));
    await run('npm', ['install', join(work, packed.filename), '--prefer-offline', '--no-audit', '--no-fund'], { cwd: project, env: npmEnv() });
  }, 180_000);

  afterEach(async () => {
    for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await clients.closeAll();
  });

  afterAll(async () => {
    await t?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const start = (command: string, args: string[], env: Record<string, string>) => {
    const r = startProcess(command, args, { cwd: project, env: { ...npmEnv(), HUB_URL: '', HUB_TOKEN: '', ...env } });
    running.push(r);
    return r;
  };
  const hubAgent = (args: string[], env: Record<string, string>) => start(join(project, 'node_modules/.bin/hub-agent'), args, env);

  it("holds only the client's build, its types, its README and the command", () => {
    const paths = packed.files.map((f) => f.path);
    for (const path of paths)
      expect(path).toMatch(/^(?:package\.json|README\.md|bin\/hub-agent\.js|dist\/(?:client|cli|examples|protocol)\/[\w.]+\.(?:js|d\.ts))$/);
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'dist/client/index.js', 'dist/client/index.d.ts', 'dist/cli/main.js', 'bin/hub-agent.js']));
    // The installed project holds the client and its runtime dependencies (theirs included: the MCP
    // SDK's) only: no server, no native build.
    const installed = readdirSync(join(project, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) => (name.startsWith('@') ? readdirSync(join(project, 'node_modules', name)).map((inner) => `${name}/${inner}`) : [name]));
    const needed = new Set<string>();
    const walk = (name: string) => {
      if (needed.has(name)) return;
      needed.add(name);
      const pkg = JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
      for (const dep of Object.keys(pkg.dependencies ?? {})) walk(dep);
    };
    walk('@agent-hub/client');
    expect(installed.sort()).toEqual([...needed].sort());
    expect(installed).toEqual(expect.arrayContaining(Object.keys(manifest.dependencies)));
    for (const serverSide of ['better-sqlite3', 'uWebSockets.js', 'ultimate-express', 'kysely', 'pg', 'ioredis', 'pino', 'express', 'hono']) {
      expect(installed).not.toContain(serverSide);
    }
  });

  it('runs an agent written against the installed package: connect, report, receive a chat, answer, see the ACK', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await clients.open(member.token);
    writeFileSync(join(project, 'agent.mjs'), AGENT);
    const agentRun = start(process.execPath, ['agent.mjs'], { HUB_URL: t.url, HUB_TOKEN: agent.api_token });

    const reported = Number((await agentRun.line('stdout', /^reported \d+$/)).split(' ')[1]);
    const report = await m.waitFor((f) => f.type === 'WEATHER_UPDATE' && f.sender_id === agent.id, 'the report');
    expect(report).toMatchObject({ id: reported, payload: { location: 'Oslo', temperature_c: -3 } });

    await m.client.send({ type: 'CHAT', payload: 'hello agent', target_id: agent.id });
    const answer = await m.waitFor(isChatFrom(agent.id), 'the answer');
    expect(answer).toMatchObject({ payload: 'you said: hello agent', target_id: member.id });
    expect(await agentRun.line('stdout', /^acked \d+$/)).toBe(`acked ${answer.id}`);
    expect(await agentRun.exit()).toBe(0);
  });

  it('loads with require() from CommonJS as well (Node requires the ES module), and works', async () => {
    const agent = await t.createAgent();
    const admin = await clients.open(t.adminToken);
    writeFileSync(
      join(project, 'agent.cjs'),
      `const { HubClient, isChatType } = require('@agent-hub/client');
const hub = new HubClient({ url: process.env.HUB_URL, token: process.env.HUB_TOKEN, reconnect: false });
hub.connect()
  .then(() => hub.log('INFO', 'from require: ' + isChatType('CHAT')))
  .then((receipt) => { console.log('logged ' + receipt.id); return hub.close(); });
`,
    );
    const run = start(process.execPath, ['agent.cjs'], { HUB_URL: t.url, HUB_TOKEN: agent.api_token });
    expect(await run.exit()).toBe(0);
    const log = await admin.waitFor((f) => f.type === 'SYSTEM_LOG' && f.sender_id === agent.id, 'the log');
    expect(log.payload).toMatchObject({ level: 'INFO', content: 'from require: true' });
    expect(run.stdout).toEqual([`logged ${log.id}`]);
    expect(run.stderr).toEqual([]);
  });

  it('runs the packed hub-agent: --version, send --to <name>, agents list', async () => {
    const version = hubAgent(['--version'], {});
    expect(await version.exit()).toBe(0);
    expect(version.stdout).toEqual([manifest.version]);
    // `npx @agent-hub/client` runs the package's one command too.
    const viaNpx = start('npx', ['--no-install', '@agent-hub/client', '--version'], {});
    expect(await viaNpx.exit()).toBe(0);
    expect(viaNpx.stdout).toEqual([manifest.version]);

    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const send = hubAgent(['send', '--to', agent.username, 'from the packed command'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await send.exit()).toBe(0);
    const chat = await a.waitFor(isChatFrom(member.id), 'the chat');
    expect(chat).toMatchObject({ payload: 'from the packed command', target_id: agent.id });
    expect(send.stdout).toEqual([String(chat.id)]);

    const list = hubAgent(['agents', 'list'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await list.exit()).toBe(0);
    expect(list.stdout).toContainEqual(expect.stringMatching(new RegExp(`^${agent.id}\\t${agent.username}\\tAGENT\\tONLINE\\t`)));
  }, 60_000);

  it('runs the packed `hub-agent mcp` for an MCP client that launches it over stdio', async () => {
    const member = await t.createMember();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(project, 'node_modules/@agent-hub/client/bin/hub-agent.js'), 'mcp'],
      cwd: project,
      env: { PATH: process.env['PATH'] ?? '', HUB_URL: t.url, HUB_TOKEN: member.token },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'desktop-app', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['list_agents', 'send_message', 'ask_butler']));
    } finally {
      await client.close();
    }
  }, 60_000);

  it('bundles for a browser from the installed package, without Node built-ins, under 60 KB gzipped', async () => {
    writeFileSync(
      join(project, 'page.js'),
      "import { HubClient } from '@agent-hub/client';\nglobalThis.hub = new HubClient({ url: location.origin, token: 'x' });\n",
    );
    const result = await build({
      entryPoints: [join(project, 'page.js')],
      absWorkingDir: project,
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('node_modules/@agent-hub/client/dist/client/'))).toBe(true);
    // `ws` is loaded only where there is no WebSocket; its browser entry is a stub.
    expect(inputs.filter((path) => /node_modules\/ws\/(?!browser)/.test(path))).toEqual([]);
    // The same budget as `npm run size:client` (esbuild, minified, gzipped).
    expect(gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length).toBeLessThan(60 * 1024);
  });
});
