// Secrets scan, last: everything the hubs of this run logged, and every answer the fuzzers kept,
// searched for the JWT secret, passwords, agents' api_tokens and any JWT. Its own hub first goes
// through the moves most likely to log a credential (a token in the socket URL, a refused upgrade,
// failed logins with a real password under a wrong name).
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { MEMBER_PASSWORD } from '../../bench/lib/api.js';
import { ADMIN } from '../../bench/lib/servers.js';
import { int } from '../../bench/lib/stats.js';
import { crew } from '../lib/cast.js';
import { defineCheck } from '../lib/check.js';
import { scanFile, type Finding } from '../lib/secrets.js';
import { atLeast, equals, info } from '../lib/verdict.js';

/** Opens and closes one socket (or has its upgrade refused): either way the hub logs the attempt. */
function touchSocket(url: string): Promise<void> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('open', () => ws.close());
    ws.on('close', () => resolve());
    ws.on('error', () => resolve());
  });
}

export default defineCheck({
  key: 'secrets',
  title: 'no credential in what the hub logged or answered',
  order: 90,
  settings: () => ({}),
  async run(ctx) {
    const hub = await ctx.hub('secrets', await ctx.newStore('secrets'));
    const cast = await crew(ctx, hub, 'secrets', 1, 1);
    const human = cast.humans[0]!;
    const agent = cast.agents[0]!;
    for (const [username, password] of [
      [`${human.username}x`, MEMBER_PASSWORD],
      [ADMIN.username, `${ADMIN.password}x`],
      [agent.username, agent.api_token],
    ] as const) {
      await fetch(`${hub.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      }).then((r) => r.arrayBuffer());
    }
    await touchSocket(hub.socketUrl(human.token));
    await touchSocket(hub.socketUrl(agent.api_token));
    await touchSocket(hub.socketUrl(`${agent.api_token.slice(0, -2)}zz`));
    await fetch(`${hub.baseUrl}/api/users/agents?token=${agent.api_token}`, { headers: { authorization: `Bearer ${human.token}` } }).then((r) =>
      r.arrayBuffer(),
    );
    await fetch(`${hub.baseUrl}/api/users/agents/test-connection`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${cast.adminToken}` },
      body: JSON.stringify({ api_token: agent.api_token }),
    }).then((r) => r.arrayBuffer());
    await ctx.stopHub(hub);

    const logs = readdirSync(ctx.workDir)
      .map((d) => join(ctx.workDir, d, 'hub.log'))
      .filter((f) => existsSync(f));
    const answers = readdirSync(ctx.answersDir).map((f) => join(ctx.answersDir, f));
    const found: Array<Finding & { where: string }> = [];
    let lines = 0;
    for (const file of [...logs, ...answers]) {
      const scanned = await scanFile(file, ctx.secrets, () => false);
      lines += scanned.lines;
      found.push(...scanned.findings.map((f) => ({ ...f, where: `${file.slice(ctx.workDir.length + 1)}:${f.line}` })));
    }
    const byKind = (kind: Finding['kind']) => found.filter((f) => f.kind === kind).length;
    return {
      measured: `The hub logs of every check in this run (${logs.length} files, LOG_LEVEL=info) and the fuzzers' kept answers (${answers.length} files): ${int(lines)} lines searched for the JWT secret, ${int(ctx.secrets.size)} passwords and api_tokens handed out during the run, and anything shaped like a JWT.`,
      verdicts: [
        atLeast('lines scanned', lines, 1),
        equals('JWT secret', byKind('JWT secret'), 0),
        equals('passwords', byKind('password'), 0),
        equals('api_tokens', byKind('api_token'), 0),
        equals('JWTs', byKind('JWT'), 0),
        info('files scanned', [...logs, ...answers].map((f) => f.slice(ctx.workDir.length + 1)).join(', ')),
      ],
      notes:
        found.length > 0
          ? [
              `Found, e.g.: ${found
                .slice(0, 8)
                .map((f) => `${f.kind} ${f.sample} at ${f.where}`)
                .join('; ')}`,
            ]
          : [],
    };
  },
});
