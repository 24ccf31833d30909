// The pure parts of the example agents: secret patterns, the diff rules, npm lockfile reading, the
// audit of a directory, the CLI's command line and its tail format.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatFrame } from '../../../src/cli/format.js';
import { parseCommandLine } from '../../../src/cli/options.js';
import { looksLikeDiff, reviewDiff } from '../../../src/examples/codeReview.js';
import { chunksOf } from '../../../src/examples/echo.js';
import { findSecrets } from '../../../src/examples/secrets.js';
import { audit, lockfileEntries } from '../../../src/examples/securityAudit.js';

describe('secret patterns', () => {
  it.each([
    ['AWS_ACCESS_KEY_ID=AKIAZ7QXV3EXAMPLE123', 'aws-access-key-id', 'AWS_ACCESS_KEY_ID=AKIA************'],
    ['-----BEGIN RSA PRIVATE KEY-----', 'private-key', '-----BEGIN RSA PRIVATE KEY-----'],
    [`token: ghp_${'a'.repeat(36)}`, 'github-token', 'token: ghp_************'],
    ['SLACK=xoxb-1234567890-abcdef', 'slack-token', 'SLACK=xoxb************'],
    [`key = "AIza${'B'.repeat(35)}"`, 'google-api-key', 'key = "AIza************"'],
    ['OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx', 'api-secret-key', 'OPENAI_API_KEY=sk-p************'],
    ['db.password = "hunter2hunter2"', 'hardcoded-credential', 'db.password = "hunt**********"'],
  ])('finds %s as %s, masked', (line, rule, excerpt) => {
    const found = findSecrets(line);
    expect(found.map((f) => f.rule.id)).toContain(rule);
    expect(found.find((f) => f.rule.id === rule)!.excerpt).toBe(excerpt);
  });

  it.each([
    'password = "changeme"',
    'api_key: "${API_KEY}"',
    'secret = "<your secret>"',
    'password = process.env.DB_PASSWORD',
    'const tokenizer = "whitespace"',
    'AKIA_NOT_A_KEY',
  ])('leaves %s alone', (line) => {
    expect(findSecrets(line)).toEqual([]);
  });
});

describe('diff review rules', () => {
  const diff = (file: string, added: string[]) =>
    [`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`, `@@ -1,1 +1,${added.length + 1} @@`, ' keep', ...added.map((l) => `+${l}`), ''].join(
      '\n',
    );

  it.each([
    ['a.ts', 'debugger;', 'no-debugger', 'error'],
    ['a.js', 'const f = new Function("x", body);', 'no-eval', 'error'],
    ['a.tsx', 'console.debug(state);', 'no-console', 'warning'],
    ['a.ts', '// @ts-ignore', 'no-ts-ignore', 'warning'],
    ['a.py', '<<<<<<< HEAD', 'merge-conflict-marker', 'error'],
    ['db.ts', 'db.query("SELECT * FROM users WHERE id = " + id);', 'no-sql-concat', 'warning'],
    ['a.md', 'TODO: write this', 'todo-left', 'info'],
  ])('%s: %s → %s', (file, line, rule, severity) => {
    const { findings } = reviewDiff(diff(file, [line]));
    expect(findings).toContainEqual(expect.objectContaining({ file, line: 2, rule, severity }));
  });

  it('checks only added lines, and script rules only in scripts', () => {
    const text = ['diff --git a/a.ts b/a.ts', '--- a/a.ts', '+++ b/a.ts', '@@ -1,2 +1,1 @@', '-debugger;', ' ok();', ''].join('\n');
    expect(reviewDiff(text).findings).toEqual([]);
    expect(reviewDiff(diff('notes.txt', ['console.log(x)'])).findings).toEqual([]);
  });

  it('tells a diff from prose', () => {
    expect(looksLikeDiff(diff('a.ts', ['x']))).toBe(true);
    expect(looksLikeDiff('--- not a diff\nreally')).toBe(false);
  });
});

describe('npm lockfiles and the audit', () => {
  const root = mkdtempSync(join(tmpdir(), 'audit-unit-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reads v3 packages (nested too) and v1 dependencies', () => {
    const v3 = {
      lockfileVersion: 3,
      packages: { '': { name: 'x' }, 'node_modules/a': { version: '1.0.0' }, 'node_modules/a/node_modules/@s/b': { version: '2.0.0' } },
    };
    expect(lockfileEntries(JSON.stringify(v3))).toEqual([
      { name: 'a', version: '1.0.0' },
      { name: '@s/b', version: '2.0.0' },
    ]);
    const v1 = { lockfileVersion: 1, dependencies: { a: { version: '1.0.0', dependencies: { b: { version: '0.1.0' } } } } };
    expect(lockfileEntries(JSON.stringify(v1))).toEqual([
      { name: 'a', version: '1.0.0' },
      { name: 'b', version: '0.1.0' },
    ]);
  });

  it('reports each vulnerable version once, skips binaries and what is not a lockfile', async () => {
    mkdirSync(join(root, 'svc'));
    writeFileSync(
      join(root, 'svc', 'package-lock.json'),
      JSON.stringify({
        packages: { 'node_modules/m': { version: '0.9.0' }, 'node_modules/x/node_modules/m': { version: '0.9.0' }, 'node_modules/n': { version: '2.0.0' } },
      }),
    );
    writeFileSync(join(root, 'svc', 'blob.bin'), Buffer.from([0, 1, 2, 65, 75, 73, 65]));
    writeFileSync(join(root, 'svc', 'package.json'), '{ "name": "svc" }');
    const { files, findings } = await audit(join(root, 'svc'), [
      { id: 'ADV-1', package: 'm', vulnerable: '<1.0.0', severity: 'medium' },
      { id: 'ADV-2', package: 'n', vulnerable: '>=3', severity: 'critical' },
    ]);
    expect(files).toBe(2);
    expect(findings).toEqual([
      { kind: 'vulnerable_dependency', severity: 'medium', file: 'package-lock.json', package: 'm', version: '0.9.0', advisory: 'ADV-1' },
    ]);
  });
});

describe('hub-agent command line', () => {
  it('reads options, then the environment, with defaults', () => {
    expect(parseCommandLine(['send', '--to', '5', 'hi', 'there'], { HUB_TOKEN: 't' })).toEqual({
      ok: true,
      run: { command: 'send', url: 'http://localhost:8080', token: 't', to: 5, type: 'CHAT', level: 'INFO', text: 'hi there' },
    });
    expect(parseCommandLine(['send', '--to', 'weather-bot', 'hi'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { to: 'weather-bot' } });
    expect(parseCommandLine(['send', '--to', '5', '--wait', 'hi'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { to: 5, wait: 120 } });
    expect(parseCommandLine(['send', '--to', '5', '--wait', '--timeout', '30', 'hi'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { wait: 30 } });
    expect(parseCommandLine(['send', '--broadcast', 'hi'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { text: 'hi' } });
    // A log goes to the dashboards without a recipient, as every log does.
    expect(parseCommandLine(['send', '--type', 'SYSTEM_LOG', 'disk at 90%'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { type: 'SYSTEM_LOG' } });
    expect(parseCommandLine(['users', 'password', 'bob', '--password', 'long-enough'], { HUB_TOKEN: 't' })).toMatchObject({
      ok: true,
      run: { command: 'users password', user: 'bob', password: 'long-enough' },
    });
    expect(parseCommandLine(['tail', '--since', '40', '--url', 'ws://hub:1'], { HUB_TOKEN: 't', HUB_URL: 'http://other' })).toEqual({
      ok: true,
      run: { command: 'tail', url: 'ws://hub:1', token: 't', since: 40, json: false },
    });
    expect(parseCommandLine(['agents', 'rotate', 'bot'], { HUB_TOKEN: 't' })).toMatchObject({ ok: true, run: { command: 'agents rotate', agent: 'bot' } });
    expect(parseCommandLine(['approvals', 'reject', 'act-1'], { HUB_TOKEN: 't' })).toMatchObject({
      ok: true,
      run: { command: 'approvals reject', actionId: 'act-1' },
    });
  });

  it.each<[string[], Record<string, string>, string]>([
    [['send'], { HUB_TOKEN: 't' }, "hub-agent: missing required argument 'text'\n"],
    [['send', 'hi'], { HUB_TOKEN: 't' }, 'hub-agent: say who gets it: --to <name|id>, or --broadcast for every connection\n'],
    [['send', '--to', 'a', '--broadcast', 'hi'], { HUB_TOKEN: 't' }, "hub-agent: option '--broadcast' cannot be used with option '--to <name|id>'\n"],
    [['send', '--to', 'a', '--timeout', '5', 'hi'], { HUB_TOKEN: 't' }, 'hub-agent: --timeout goes with --wait\n'],
    [['users', 'create', 'bob'], { HUB_TOKEN: 't' }, 'hub-agent: a password is required: set HUB_USER_PASSWORD (or pass --password)\n'],
    [['users', 'password', 'bob'], { HUB_TOKEN: 't' }, 'hub-agent: a password is required: set HUB_USER_PASSWORD (or pass --password)\n'],
    [
      ['send', '--type', 'SHOUT', 'x'],
      { HUB_TOKEN: 't' },
      "hub-agent: option '--type <type>' argument 'SHOUT' is invalid. Allowed choices are CHAT, SYSTEM_LOG.\n",
    ],
    [
      ['tail', '--since=-1'],
      { HUB_TOKEN: 't' },
      "hub-agent: option '--since <id>' argument '-1' is invalid. must be a message id (a whole number, 0 or more)\n",
    ],
    [['tail', '--bogus'], { HUB_TOKEN: 't' }, "hub-agent: unknown option '--bogus'\n"],
    [['agents', 'lst'], { HUB_TOKEN: 't' }, "hub-agent: unknown command 'lst'\n(Did you mean list?)\n"],
    [['shout'], {}, "hub-agent: unknown command 'shout'\n"],
    // The argument is wrong and the token missing: the argument is named first.
    [['send', '--to', '0', 'hi'], {}, "hub-agent: option '--to <name|id>' argument '0' is invalid. must be a user name or an id from 1\n"],
    [['tail'], {}, 'hub-agent: no token: pass --token or set HUB_TOKEN\n'],
    [['tail', '--url', 'ftp://hub'], { HUB_TOKEN: 't' }, 'hub-agent: --url must be an http(s):// or ws(s):// URL (got "ftp://hub")\n'],
  ])('%j: one line naming the mistake, exit 2', (argv, env, message) => {
    expect(parseCommandLine(argv, env)).toEqual({ ok: false, code: 2, stdout: '', stderr: message });
  });

  it('prints the version and help on stdout with exit 0; no arguments is a mistake that shows the usage', () => {
    expect(parseCommandLine(['--version'], {}, '1.2.3')).toEqual({ ok: false, code: 0, stdout: '1.2.3\n', stderr: '' });
    const help = parseCommandLine(['send', '--help'], {});
    expect(help).toMatchObject({ ok: false, code: 0, stderr: '' });
    expect((help as { stdout: string }).stdout).toMatch(/^Usage: hub-agent send \[options\] <text\.\.\.>/);
    const none = parseCommandLine([], {});
    expect(none).toMatchObject({ ok: false, code: 2, stdout: '' });
    expect((none as { stderr: string }).stderr).toMatch(/^Usage: hub-agent \[options\] \[command\]/);
  });
});

describe('tail format and echo chunks', () => {
  const base = { sender_id: 3, sender_name: 'bot', sender_role: 'AGENT', timestamp: 'T' };
  it.each([
    [{ ...base, type: 'CHAT', id: 9, target_id: 5, payload: 'two\nlines' }, 'T #9 CHAT bot → 5: two ⏎ lines'],
    [{ ...base, type: 'SYSTEM_LOG', id: 10, payload: { level: 'ERROR', content: 'down' } }, 'T #10 SYSTEM_LOG bot ERROR: down'],
    [
      { ...base, type: 'WEATHER_UPDATE', id: 11, payload: { location: 'Oslo', temperature_c: 1, content: 'Oslo: 1 °C' } },
      'T #11 WEATHER_UPDATE bot: Oslo: 1 °C',
    ],
    [{ ...base, type: 'CODE_REVIEW', id: 12, payload: 'fine' }, 'T #12 CODE_REVIEW bot: fine'],
    [
      { ...base, type: 'PRESENCE', payload: { user_id: 3, username: 'bot', status: 'ONLINE', online: true, last_seen_at: null, last_report: 'ready' } },
      'T PRESENCE bot ONLINE (ready)',
    ],
    [{ ...base, type: 'CHAT_STREAM', payload: 'chunk', stream_id: 's' }, undefined],
  ])('%j', (frame, line) => {
    expect(formatFrame(frame as never)).toBe(line);
  });

  it('cuts text into chunks that add up to it', () => {
    expect(chunksOf('a  bc\nd ')).toEqual(['a  ', 'bc\n', 'd ']);
    expect(chunksOf('  lead')).toEqual(['  ', 'lead']);
    expect(chunksOf('')).toEqual([]);
  });
});
