// `@agent-hub/testing` as an agent author gets it: the three packages packed (`npm pack` builds each),
// installed from their tarballs with vitest and jest into an empty folder, and tests written there
// against the kit run by that folder's own vitest, jest (ESM and CommonJS files) and node:test: an
// agent and a human chat, Butler answers
// from the scripted model, the connector and Butler's conversation reach named states, an approval
// expires when the clock is moved, and a failing expectation prints the actor trace.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve('.');
const vitestVersion = (JSON.parse(readFileSync(join(root, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }).version;
/** The jest the empty folder installs from the registry (the project itself does not use jest). */
const JEST_VERSION = '30.5.2';

/** The npm settings of the `npm test` that started us must not leak into the empty folder's npm. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_cache', 'npm_config_registry', 'npm_config_userconfig']);
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || keep.has(key.toLowerCase())));
}

interface PackResult {
  filename: string;
  files: Array<{ path: string }>;
}

const AGENT_TEST = `
import { afterEach, expect, test } from 'vitest';
import { startTestHub, textReply } from '@agent-hub/testing';

let hub;
afterEach(() => hub?.stop());

test('an agent answers a human; Butler and the connector reach their states', async () => {
  hub = await startTestHub({ trace: true });
  const agent = await hub.agent('echo');
  agent.onChat((frame) => agent.reply(frame, \`echo: \${frame.payload}\`));
  const alice = await hub.human('alice');

  await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'ping' });
  await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: 'echo: ping' });

  hub.model.enqueue(textReply('echo is online.'));
  await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'who is online?' });
  await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'echo is online.' });
  const [conversation] = hub.actors.list({ kind: 'conversation' });
  await hub.actors.waitFor(conversation.id, { state: 'idle', context: { answered: 1 } });
  expect(hub.actors.get('butler')).toMatchObject({ state: 'running' });

  await hub.platform.connect();
  await hub.actors.waitFor('connector', { state: 'enabled', context: { connection: 'connected' } });
  await hub.quiesce();
  expect(hub.trace({ actor: 'butler' }).length).toBeGreaterThan(0);
}, 60_000);

test('an approval nobody answers expires when the clock moves past BUTLER_AUTH_TIMEOUT', async () => {
  hub = await startTestHub({ env: { BUTLER_AUTH_TIMEOUT: '10m' } });
  const deployer = await hub.agent('deployer');
  const alice = await hub.human('alice');
  const call = { target_agent_id: deployer.id, command: 'deploy', reasoning: 'alice asked' };
  hub.model.enqueue({ steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify(call) } }] }, textReply('Approve it?'));
  await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'deploy please' });
  const request = await alice.expect({ type: 'AUTH_REQUEST' });
  await hub.clock.advance('10m');
  await alice.expect({ type: 'AUTH_STATUS_UPDATE', payload: { action_id: request.payload.action_id, status: 'EXPIRED' } });
  await deployer.expectNothing({ type: 'CHAT', payload: /deploy/ });
}, 60_000);
`;

const FAILING_TEST = `
import { afterEach, test } from 'vitest';
import { startTestHub } from '@agent-hub/testing';

let hub;
afterEach(() => hub?.stop());

test('waits for a frame that never comes', async () => {
  hub = await startTestHub({ trace: true });
  const alice = await hub.human('alice');
  await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'hello' });
  await alice.expect({ type: 'CHAT', sender_id: hub.butler.id });
  await alice.expect({ type: 'AUTH_REQUEST' }, { within: '100ms' });
}, 60_000);
`;

const NODE_TEST = `
import { test } from 'node:test';
import { startTestHub } from '@agent-hub/testing';

test('node:test: a human hears an agent', async () => {
  const hub = await startTestHub();
  try {
    const agent = await hub.agent('reporter');
    const ops = await hub.human('ops', { role: 'ADMIN' });
    await agent.log('SUCCESS', 'reporter online');
    await ops.expect({ type: 'SYSTEM_LOG', sender_id: agent.id, payload: { level: 'SUCCESS', content: 'reporter online' } });
    await hub.quiesce();
  } finally {
    await hub.stop();
  }
});
`;

// Under jest, a module (import) test file and a CommonJS (require) one; both need Node's VM modules
// (jest's ESM support, and its require() of an ES module), as packages/testing/README.md says.
const JEST_ESM_TEST = `
import { afterEach, expect, test } from '@jest/globals';
import { startTestHub, textReply } from '@agent-hub/testing';

let hub;
afterEach(() => hub?.stop());

test('jest (import): an agent answers a human; Butler answers from the scripted model', async () => {
  hub = await startTestHub();
  const agent = await hub.agent('echo');
  agent.onChat((frame) => agent.reply(frame, \`echo: \${frame.payload}\`));
  const alice = await hub.human('alice');
  await alice.send({ type: 'CHAT', target_id: agent.id, payload: 'ping' });
  await alice.expect({ type: 'CHAT', sender_id: agent.id, payload: 'echo: ping' });
  hub.model.enqueue(textReply('echo is online.'));
  await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'who is online?' });
  await alice.expect({ type: 'CHAT', sender_id: hub.butler.id, payload: 'echo is online.' });
  await hub.actors.waitFor('butler', (b) => b.context.turns === 1);
}, 60_000);
`;

const JEST_CJS_TEST = `
const { afterEach, test } = require('@jest/globals');
const { startTestHub } = require('@agent-hub/testing');

let hub;
afterEach(() => hub?.stop());

test('jest (require): an approval expires when the clock moves', async () => {
  hub = await startTestHub({ env: { BUTLER_AUTH_TIMEOUT: '10m' } });
  const deployer = await hub.agent('deployer');
  const alice = await hub.human('alice');
  const call = { target_agent_id: deployer.id, command: 'deploy', reasoning: 'alice asked' };
  hub.model.enqueue({ steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify(call) } }] });
  await alice.send({ type: 'CHAT', target_id: hub.butler.id, payload: 'deploy please' });
  const request = await alice.expect({ type: 'AUTH_REQUEST' });
  await hub.clock.advance('10m');
  await alice.expect({ type: 'AUTH_STATUS_UPDATE', payload: { action_id: request.payload.action_id, status: 'EXPIRED' } });
}, 60_000);
`;

describe('@agent-hub/testing from its tarball', () => {
  let work: string;
  let project: string;
  let kit: PackResult;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'hub-testing-package-'));
    project = join(work, 'project');
    // One at a time: the kit's build reads the server's (prepack builds each).
    const packs: PackResult[] = [];
    for (const name of ['@agent-hub/server', '@agent-hub/client', '@agent-hub/testing']) {
      const pack = await run('npm', ['pack', '-w', name, '--pack-destination', work, '--json'], { cwd: root, env: npmEnv(), maxBuffer: 16 << 20 });
      packs.push((JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as PackResult[])[0]!);
    }
    kit = packs[2]!;
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-agent', private: true, type: 'module' }));
    await run(
      'npm',
      [
        'install',
        ...packs.map((p) => join(work, p.filename)),
        `vitest@${vitestVersion}`,
        `jest@${JEST_VERSION}`,
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      {
        cwd: project,
        env: npmEnv(),
        maxBuffer: 16 << 20,
      },
    );
    writeFileSync(join(project, 'agent.test.js'), AGENT_TEST);
    writeFileSync(join(project, 'failing.test.js'), FAILING_TEST);
    writeFileSync(join(project, 'node.test.mjs'), NODE_TEST);
    // Names no vitest filter above matches (a filter is a substring of the path).
    writeFileSync(join(project, 'jest-chat.test.mjs'), JEST_ESM_TEST);
    writeFileSync(join(project, 'jest-approval.test.cjs'), JEST_CJS_TEST);
  }, 900_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const inProject = (command: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
    run(command, args, { cwd: project, env: { ...npmEnv(), NO_COLOR: '1', FORCE_COLOR: '0', ...env }, maxBuffer: 16 << 20 }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, output: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
    );

  it('holds only the kit, compiled with its declarations; the hub and the client come from their packages', () => {
    const paths = kit.files.map((f) => f.path);
    for (const path of paths) expect(path).toMatch(/^(?:package\.json|README\.md|dist\/\w+\.(?:js|d\.ts))$/);
    expect(paths).toEqual(expect.arrayContaining(['README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/testHub.js']));
    expect(readdirSync(join(project, 'node_modules/@agent-hub')).sort()).toEqual(['client', 'server', 'testing']);
    const source = readFileSync(join(project, 'node_modules/@agent-hub/testing/dist/testHub.js'), 'utf8');
    expect(source).toContain("from '@agent-hub/server/dist/src/hub.js'");
    expect(source).toContain("from '@agent-hub/client'");
    expect(source).not.toMatch(/from '\.\.\//);
  });

  it("runs vitest tests written in the empty project: chat, Butler's answer, actors reaching their states, an approval expired by the clock", async () => {
    const result = await inProject('npx', ['--no-install', 'vitest', 'run', 'agent.test.js']);
    expect(result.output).toMatch(/Tests {2}2 passed \(2\)/);
    expect(result.code).toBe(0);
  }, 180_000);

  it('prints the frames seen and the actor trace when an expectation fails there', async () => {
    const result = await inProject('npx', ['--no-install', 'vitest', 'run', 'failing.test.js']);
    expect(result.code).toBe(1);
    expect(result.output).toContain('alice received no frame matching {"type":"AUTH_REQUEST"} within 100 ms');
    expect(result.output).toMatch(/frames alice received after the last expect/);
    expect(result.output).toMatch(/actor trace \(\d+ entries\):/);
    expect(result.output).toMatch(/conversation-\d+-\d+: idle → answering on /);
  }, 180_000);

  it('runs under node:test too', async () => {
    const result = await inProject(process.execPath, ['--test', '--test-reporter=tap', 'node.test.mjs']);
    expect(result.output).toMatch(/^# pass 1$/m);
    expect(result.code).toBe(0);
  }, 180_000);

  it("runs under jest, from an import and from a require, with Node's VM modules on", async () => {
    const result = await inProject('npx', ['--no-install', 'jest', '--ci', '--verbose', 'jest-'], { NODE_OPTIONS: '--experimental-vm-modules' });
    expect(result.output).toMatch(/✓ jest \(import\): an agent answers a human/);
    expect(result.output).toMatch(/✓ jest \(require\): an approval expires when the clock moves/);
    expect(result.output).toMatch(/Tests: {7}2 passed, 2 total/);
    // stop() leaves nothing running: jest would say it "did not exit one second after the test run".
    expect(result.output).not.toMatch(/did not exit|open handle/i);
    expect(result.code).toBe(0);
  }, 180_000);
});
