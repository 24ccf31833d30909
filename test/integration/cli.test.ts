// `hub-agent` as a person runs it: a real child process against a real hub. Data on stdout,
// progress on stderr, Ctrl-C (SIGINT) stops cleanly with exit code 0, refusals exit 1 with one line.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startA2aPeer } from '../helpers/a2aPeer.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { closedPort } from '../helpers/ports.js';
import { hubClientPool, isChatFrom } from '../helpers/hubClients.js';
import { startProcess, type ProcessRun } from '../helpers/processRun.js';

const running: ProcessRun[] = [];
const BUTLER_ID = 2;
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

  it('send without --to refuses to broadcast a chat; --broadcast sends it to every connection, agents included', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    const refused = hubAgent(['send', 'to whom?'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await refused.exit()).toBe(2);
    expect(refused.stderr).toEqual(['hub-agent: say who gets it: --to <name|id>, or --broadcast for every connection']);

    const run = hubAgent(['send', '--broadcast', 'to everyone'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(0);
    const chat = await a.waitFor(isChatFrom(member.id), 'the broadcast');
    expect(chat.payload).toBe('to everyone');
    expect(chat.target_id).toBeUndefined();
    expect(run.stdout).toEqual([String(chat.id)]);
    // The refused command stored nothing: the broadcast is the member's only chat.
    const history = await t.api.get(`/api/messages?agent_id=${member.username}`, { token: t.adminToken });
    expect(history.body.map((m: { payload: unknown }) => m.payload)).not.toContain('to whom?');
  });

  it("send --wait: prints the stored id, then the agent's reply", async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await clients.open(agent.api_token);
    a.client.onChat((chat) => a.client.reply(chat, `pong: ${chat.payload}`));
    const run = hubAgent(['send', '--to', agent.username, '--wait', 'ping'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(0);
    const asked = await a.waitFor(isChatFrom(member.id), 'the question');
    expect(run.stdout).toEqual([String(asked.id), 'pong: ping']);
    expect(run.stderr).toContain('hub-agent: waiting up to 120 s for the reply');
  });

  it("send --to Butler --wait: prints Butler's whole answer (its final CHAT, not the stream's chunks)", async () => {
    const member = await t.createMember();
    const m = await clients.open(member.token);
    const run = hubAgent(['send', '--to', String(BUTLER_ID), '--wait', 'agents'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(0);
    const answer = await m.waitFor(isChatFrom(BUTLER_ID), "Butler's answer");
    expect(answer.payload.length).toBeGreaterThan(0);
    expect(run.stdout.slice(1).join('\n')).toBe(answer.payload);
  });

  it('send --wait gives up after --timeout with exit 1, the id already printed', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    await clients.open(agent.api_token);
    const run = hubAgent(['send', '--to', String(agent.id), '--wait', '--timeout', '1', 'anyone?'], { HUB_URL: t.url, HUB_TOKEN: member.token });
    expect(await run.exit()).toBe(1);
    expect(run.stdout).toHaveLength(1);
    expect(run.stdout[0]).toMatch(/^\d+$/);
    expect(run.stderr).toContain('hub-agent: no reply within 1 s');
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
    'agents register --a2a: a remote agent by its card URL, the credential from $HUB_A2A_CREDENTIAL; a bad URL is refused with the reason',
    async () => {
      const peer = await startA2aPeer();
      try {
        const env = { HUB_URL: t.url, HUB_TOKEN: t.adminToken };
        const name = uniqueName('cli-remote');
        const register = hubAgent(['agents', 'register', name, '--a2a', peer.cardUrl], { ...env, HUB_A2A_CREDENTIAL: 'cli-peer-credential' });
        expect(await register.exit()).toBe(0);
        const id = Number(register.stdout[0]);
        expect(register.stderr[0]).toContain(`registered the A2A agent ${name} (id ${id})`);
        const listed = await t.api.get(`/api/users/agents?q=${name}`, { token: t.adminToken });
        expect(listed.body[0]).toMatchObject({ id, runtime_kind: 'a2a' });
        const refused = hubAgent(['agents', 'register', uniqueName('cli-remote'), '--a2a', 'not a url'], env);
        expect(await refused.exit()).toBe(1);
        expect(refused.stderr.join('\n')).toContain('card_url: the card URL is not a URL');
      } finally {
        await peer.stop();
      }
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
    'users create refuses without a password; users password sets one (admin)',
    async () => {
      const env = { HUB_URL: t.url, HUB_TOKEN: t.adminToken };
      const name = uniqueName('cli-nopass');
      const refused = hubAgent(['users', 'create', name], { ...env, HUB_USER_PASSWORD: '' });
      expect(await refused.exit()).toBe(2);
      expect(refused.stderr).toEqual(['hub-agent: a password is required: set HUB_USER_PASSWORD (or pass --password)']);
      const users = await t.api.get(`/api/users?q=${name}`, { token: t.adminToken });
      expect(users.body).toEqual([]);

      const member = await t.createMember();
      const login = (password: string) =>
        fetch(`${t.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: member.username, password }),
        }).then((r) => r.status);
      const noPassword = hubAgent(['users', 'password', member.username], { ...env, HUB_USER_PASSWORD: '' });
      expect(await noPassword.exit()).toBe(2);
      const set = hubAgent(['users', 'password', member.username], { ...env, HUB_USER_PASSWORD: 'a-new-long-password' });
      expect(await set.exit()).toBe(0);
      expect(set.stderr).toEqual([`hub-agent: set the password of ${member.username} (id ${member.id})`]);
      expect(await login('a-new-long-password')).toBe(200);
      expect(await login('member-password')).toBe(401);

      // An agent is not a person: no password to set.
      const agent = await t.createAgent();
      const onAgent = hubAgent(['users', 'password', String(agent.id), '--password', 'a-new-long-password'], env);
      expect(await onAgent.exit()).toBe(1);
      expect(onAgent.stderr).toEqual([`hub-agent: user ${agent.id} is an agent, not a person`]);
    },
    SEVERAL_PROCESSES_MS,
  );

  it(
    'approvals list: a header row, who decided and when, the expiry only while pending, and the note left with a decision',
    async () => {
      const agent = await t.createAgent();
      const member = await t.createMember();
      // Butler asks to command an agent only while it is online.
      await clients.open(agent.api_token);
      const m = await clients.open(member.token);
      const ask = async (command: string) => {
        const seen = m.frames.length;
        await m.client.send({ type: 'CHAT', target_id: BUTLER_ID, payload: `@${agent.username} ${command}` });
        const request = await m.waitFor((f) => f.type === 'AUTH_REQUEST' && m.frames.indexOf(f) >= seen && f.payload.command === command, command);
        return (request as Extract<typeof request, { type: 'AUTH_REQUEST' }>).payload.action_id;
      };
      const decided = await ask('reindex');
      const pending = await ask('rotate logs');
      const reject = hubAgent(['approvals', 'reject', decided, '--note', 'not now:\tthe index\nis busy'], { HUB_URL: t.url, HUB_TOKEN: member.token });
      expect(await reject.exit()).toBe(0);

      const run = hubAgent(['approvals', 'list'], { HUB_URL: t.url, HUB_TOKEN: member.token });
      await run.exit();
      // Nothing left pending for the other tests, which list an admin's pending requests (every one).
      // (over the socket, with the client library's note)
      await m.client.answerAuthorization(pending, false, 'cleanup');
      expect(run.child.exitCode).toBe(0);
      expect(run.stdout[0]).toBe('ACTION_ID\tSTATUS\tAGENT\tCOMMAND\tREASON\tDECIDED_BY\tDECIDED_AT\tEXPIRES_AT\tNOTE');
      const rows = new Map(run.stdout.slice(1).map((line) => [line.split('\t')[0], line.split('\t')]));
      const stored = await m.client.rest.chat.authRequests();
      const view = (id: string) => stored.find((r) => r.action_id === id)!;
      // The note is stored as given; the list keeps it on its own line and column.
      expect(view(decided).decision_note).toBe('not now:\tthe index\nis busy');
      const row = [
        decided,
        'REJECTED',
        agent.username,
        'reindex',
        view(decided).reason,
        member.username,
        view(decided).decided_at,
        '-',
        'not now: the index is busy',
      ];
      expect(rows.get(decided)).toEqual(row);
      expect(rows.get(pending)).toEqual([pending, 'PENDING', agent.username, 'rotate logs', view(pending).reason, '-', '-', view(pending).expires_at, '-']);
      await m.waitFor((f) => f.type === 'AUTH_STATUS_UPDATE' && f.payload.action_id === pending, 'the update of the second');
      expect((await m.client.rest.chat.authRequests()).find((r) => r.action_id === pending)?.decision_note).toBe('cleanup');
    },
    SEVERAL_PROCESSES_MS,
  );

  it('outside a build, the command names the one build step it needs', async () => {
    // The package's bin without its dist/ beside it, as in a fresh clone.
    const dir = mkdtempSync(join(tmpdir(), 'hub-agent-bin-'));
    try {
      mkdirSync(join(dir, 'bin'));
      copyFileSync('packages/client/bin/hub-agent.js', join(dir, 'bin/hub-agent.js'));
      const run = startProcess(process.execPath, [join(dir, 'bin/hub-agent.js'), '--version']);
      running.push(run);
      expect(await run.exit()).toBe(1);
      expect(run.stderr).toEqual(["hub-agent: not built yet: run `npm run build:client` in the hub's folder (or run `npx tsx src/cli/main.ts`)"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

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
    [['send', 'hi', '--token', 'x'], {}, 2, /^hub-agent: say who gets it: --to <name\|id>, or --broadcast for every connection$/],
    [['send', '--broadcast', '--wait', 'hi', '--token', 'x'], {}, 2, /^hub-agent: --wait needs --to: only a recipient replies$/],
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
