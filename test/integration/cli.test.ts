// `hub-agent` as a person runs it: a real child process against a real hub. Data on stdout,
// progress on stderr, Ctrl-C (SIGINT) stops cleanly with exit code 0, refusals exit 1 with one line.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { hubClientPool, isChatFrom } from '../helpers/hubClients.js';

interface Run {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Resolves with the first line (seen or to come) on the stream that matches. */
  line(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<string>;
  exit(timeoutMs?: number): Promise<number | null>;
}

const running: Run[] = [];

function hubAgent(args: string[], env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    env: { ...process.env, HUB_URL: '', HUB_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const waiters: Array<() => void> = [];
  let exitCode: number | null | undefined;
  for (const name of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[name]!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      lines[name].push(...parts);
      for (const wake of waiters.splice(0)) wake();
    });
  }
  child.on('exit', (code) => {
    exitCode = code;
    for (const wake of waiters.splice(0)) wake();
  });
  const wait = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}; stdout: ${JSON.stringify(lines.stdout)}; stderr: ${JSON.stringify(lines.stderr)}`)),
        timeoutMs,
      );
      const attempt = () => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else waiters.push(attempt);
      };
      attempt();
    });
  const run: Run = {
    child,
    ...lines,
    line: (stream, pattern, timeoutMs = 15_000) => wait(() => lines[stream].find((l) => pattern.test(l)), `${stream} line ${pattern}`, timeoutMs),
    exit: (timeoutMs = 15_000) => wait(() => (exitCode === undefined ? undefined : { code: exitCode }), 'the exit', timeoutMs).then((e) => e.code),
  };
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
    [['--help'], {}, 0, /^Usage:/],
    [['tail'], {}, 2, /^hub-agent: no token: pass --token or set HUB_TOKEN$/],
    [['send', '--token', 'x', '--to', 'two', 'hi'], {}, 2, /^hub-agent: --to must be a number$/],
    [['shout', '--token', 'x'], {}, 2, /^hub-agent: unknown command "shout"; expected one of send, tail, echo, weather, code-review, security-audit$/],
    [['tail', '--url', 'ftp://hub', '--token', 'x'], {}, 2, /^hub-agent: --url must be an http\(s\):\/\/ or ws\(s\):\/\/ URL$/],
    [['weather', '--token', 'x'], { WEATHER_API_KEY: '' }, 1, /^hub-agent: WEATHER_API_KEY is required$/],
  ])('hub-agent %j', async (args, env, code, pattern) => {
    const run = hubAgent(args, env);
    expect(await run.exit()).toBe(code);
    expect([...run.stdout, ...run.stderr].some((l) => pattern.test(l))).toBe(true);
  });
});
