// `hub-agent` as a person runs it: a real child process against a real hub. Data on stdout,
// progress on stderr, Ctrl-C (SIGINT) stops cleanly with exit code 0, refusals exit 1 with one line.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { closedPort } from '../helpers/ports.js';
import { hubClientPool, isChatFrom } from '../helpers/hubClients.js';
import { startProcess, type ProcessRun } from '../helpers/processRun.js';

const running: ProcessRun[] = [];
/** For tests that start several processes one after another: each is a Node start, slow on a busy machine. */
const SEVERAL_PROCESSES_MS = 60_000;

function hubAgent(args: string[], env: Record<string, string>): ProcessRun {
  const run = startProcess(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, HUB_URL: '', HUB_TOKEN: '', ...env } });
  running.push(run);
  return run;
}

describe('hub-agent CLI', () => {
  let t: TestHub;
  const clients = hubClientPool(() => t);

  beforeAll(async () => {
    t = await startTestHub('sqlite');
  });
  afterEach(async () => {
    for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await clients.closeAll();
  });
  afterAll(() => t.stop());

  it('send: delivers one chat, prints its id, exits 0', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const run = hubAgent(['send', '--to', String(agent.id), 'hello', 'from', 'the', 'terminal'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(0);
    const chat = await a.waitFor(isChatFrom(member.id), 'the chat');
    expect(chat).toMatchObject({ payload: 'hello from the terminal' });
    expect(run.stdout).toEqual([String(chat.id)]);
    expect(run.stderr).toContain('hub-agent: connected');
  });

  it('send --to <name>: finds the agent by its user name', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const run = hubAgent(['send', '--to', agent.username, 'by name'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(0);
    const chat = await a.waitFor(isChatFrom(member.id), 'the chat');
    expect(chat).toMatchObject({ payload: 'by name', target_id: agent.id });
    expect(run.stdout).toEqual([String(chat.id)]);
  });

  it('send --to <unknown name>: says so in one line and exits 1 without connecting', async () => {
    const member = await t.createMember();
    const run = hubAgent(['send', '--to', 'nobody-by-that-name', 'hi'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toEqual(['hub-agent: no agent named "nobody-by-that-name" (people are found by name with an admin token only; use their id)']);
  });

  it(
    'agents register, list, rotate and delete (admin)',
    async () => {
      const env = { HUB_URL: t.url, HUB_TOKEN: t.adminToken };
      const name = uniqueName('cli-agent');
      const register = hubAgent(['agents', 'register', name, '--kind', 'weather'], env);
      expect(await register.exit()).toBe(0);
      const [token] = register.stdout;
      const connected = await clients.open(token!);
      expect(connected.client.state).toBe('open');

      const list = hubAgent(['agents', 'list', '--json'], env);
      expect(await list.exit()).toBe(0);
      const agents = JSON.parse(list.stdout[0]!) as Array<{ id: number; username: string; agent_kind: string | null }>;
      const listed = agents.find((a) => a.username === name);
      expect(listed).toMatchObject({ agent_kind: 'weather' });
      const plain = hubAgent(['agents', 'list'], env);
      expect(await plain.exit()).toBe(0);
      expect(plain.stdout).toContainEqual(expect.stringMatching(new RegExp(`^${listed!.id}\t${name}\tAGENT\t`)));

      const rotate = hubAgent(['agents', 'rotate', name], env);
      expect(await rotate.exit()).toBe(0);
      expect(rotate.stdout[0]).toMatch(/^\S{16,}$/);
      expect(rotate.stdout[0]).not.toBe(token);

      const remove = hubAgent(['agents', 'delete', String(listed!.id)], env);
      expect(await remove.exit()).toBe(0);
      expect(remove.stderr).toEqual([`hub-agent: deleted agent ${name} (id ${listed!.id})`]);
      const again = hubAgent(['agents', 'delete', name], env);
      expect(await again.exit()).toBe(1);
      expect(again.stderr).toEqual([`hub-agent: no agent named "${name}"`]);
    },
    SEVERAL_PROCESSES_MS,
  );

  it(
    "users create and list (admin); a member is refused with the hub's reason",
    async () => {
      const env = { HUB_URL: t.url, HUB_TOKEN: t.adminToken };
      const name = uniqueName('cli-user');
      const create = hubAgent(['users', 'create', name], { ...env, HUB_USER_PASSWORD: 'a-long-password' });
      expect(await create.exit()).toBe(0);
      const id = Number(create.stdout[0]);
      const login = await fetch(`${t.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: name, password: 'a-long-password' }),
      });
      expect(login.status).toBe(200);
      const list = hubAgent(['users', 'list', '--role', 'MEMBER'], env);
      expect(await list.exit()).toBe(0);
      expect(list.stdout).toContain(`${id}\t${name}\tMEMBER\tOFFLINE`);

      const member = await t.createMember();
      const refused = hubAgent(['users', 'list'], { HUB_URL: t.url, HUB_TOKEN: member.token });
      expect(await refused.exit()).toBe(1);
      expect(refused.stderr).toHaveLength(1);
      expect(refused.stderr[0]).toMatch(/^hub-agent: /);
    },
    SEVERAL_PROCESSES_MS,
  );

  it(
    'approvals list and an answer to an unknown request',
    async () => {
      const env = { HUB_URL: t.url, HUB_TOKEN: t.adminToken };
      const list = hubAgent(['approvals', 'list', '--status', 'PENDING', '--json'], env);
      expect(await list.exit()).toBe(0);
      expect(JSON.parse(list.stdout[0]!)).toEqual([]);
      const answer = hubAgent(['approvals', 'approve', 'no-such-action'], env);
      expect(await answer.exit()).toBe(1);
      expect(answer.stderr).toHaveLength(1);
    },
    SEVERAL_PROCESSES_MS,
  );

  it('an unreachable hub is named with the cause', async () => {
    const port = await closedPort();
    const run = hubAgent(['agents', 'list', '--url', `http://127.0.0.1:${port}`, '--token', 'x'], {});
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toEqual([`hub-agent: hub at http://127.0.0.1:${port}/api/users/agents unreachable: ECONNREFUSED`]);
  });

  it('tail: prints what the user receives, then stops cleanly on Ctrl-C', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const run = hubAgent(['tail', '--json'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    await run.line('stderr', /^hub-agent: connected$/);
    const a = await clients.open(agent.api_token);
    const sent = await a.client.send({ type: 'CHAT', payload: 'for the terminal', target_id: member.id });
    const line = await run.line('stdout', /for the terminal/);
    expect(JSON.parse(line)).toMatchObject({ type: 'CHAT', id: sent.id, payload: 'for the terminal', sender_id: agent.id });
    run.child.kill('SIGINT');
    expect(await run.exit()).toBe(0);
    expect(run.stderr).toContain(`hub-agent: last message id ${sent.id} (resume with --since ${sent.id})`);
  });

  it('echo: runs the agent, which announces itself, echoes, and says goodbye on Ctrl-C', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const admin = await clients.open(t.adminToken);
    const m = await clients.open(member.token);
    const run = hubAgent(['echo', '--url', t.url], { HUB_TOKEN: agent.api_token });
    await admin.waitFor((f) => f.type === 'SYSTEM_LOG' && f.sender_id === agent.id && f.payload.level === 'SUCCESS', 'the announcement', 15_000);
    await m.client.send({ type: 'CHAT', payload: 'echo me', target_id: agent.id });
    expect(await m.waitFor(isChatFrom(agent.id), 'the echo')).toMatchObject({ payload: 'echo me' });
    run.child.kill('SIGINT');
    expect(await run.exit()).toBe(0);
    await admin.waitFor((f) => f.type === 'SYSTEM_LOG' && f.sender_id === agent.id && f.payload.content === 'echo agent shutting down', 'the goodbye');
    expect(run.stderr).toContain('hub-agent: stopping');
  });

  it('says in one line that the hub refused the token, and exits 1', async () => {
    const run = hubAgent(['tail', '--url', t.url, '--token', 'no-such-token-0123456789'], {});
    expect(await run.exit()).toBe(1);
    expect(run.stderr).toContain('hub-agent: the hub refused the token (invalid token); stopping');
  });

  it.each<[string[], Record<string, string>, number, RegExp]>([
    [['--help'], {}, 0, /^Usage: hub-agent \[options\] \[command\]$/],
    [['--version'], {}, 0, /^\d+\.\d+\.\d+/],
    [[], {}, 2, /^Usage: hub-agent/],
    [['tail'], {}, 2, /^hub-agent: no token: pass --token or set HUB_TOKEN$/],
    [['send', '--to', '0', 'hi'], {}, 2, /^hub-agent: option '--to <name\|id>' argument '0' is invalid\. must be a user name or an id from 1$/],
    [['shout', '--token', 'x'], {}, 2, /^hub-agent: unknown command 'shout'$/],
    [['tail', '--url', 'ftp://hub', '--token', 'x'], {}, 2, /^hub-agent: --url must be an http\(s\):\/\/ or ws\(s\):\/\/ URL/],
    [['weather', '--token', 'x'], { WEATHER_API_KEY: '' }, 1, /^hub-agent: WEATHER_API_KEY is required$/],
  ])('hub-agent %j', async (args, env, code, pattern) => {
    const run = hubAgent(args, env);
    expect(await run.exit()).toBe(code);
    expect([...run.stdout, ...run.stderr].some((l) => pattern.test(l))).toBe(true);
  });
});
