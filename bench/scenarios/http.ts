// The HTTP API under load from autocannon: logins (a slow password hash, by design), the agent list,
// and dashboard messages posted by an agent (stored, then delivered to a dashboard socket that
// checks each arrives exactly once). Requests/s and latency per endpoint.
import type { HttpRunParams, HttpRunResult } from '../gen/protocol.js';
import { createCast, HubApi, MEMBER_PASSWORD } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { usageAlign, usageCells, usageHeader } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN } from '../lib/servers.js';
import { int, ms } from '../lib/stats.js';
import { meterUsage, type Usage } from '../lib/usage.js';

interface HttpSettings {
  /** Agents registered, so the list has something to return. */
  agents: number;
  durationMs: number;
  maxRequests: number;
  /** Keep-alive connections, one request in flight each. */
  connections: { login: number; agents: number; message: number };
}

type Endpoint = keyof HttpSettings['connections'];

const LABELS: Record<Endpoint, string> = {
  login: 'POST /api/auth/login',
  agents: 'GET /api/users/agents',
  message: 'POST /api/messages',
};

interface EndpointRow extends HttpRunResult {
  endpoint: string;
  connections: number;
  usage: Usage;
}

function problemsOf(row: EndpointRow): string[] {
  const problems: string[] = [];
  if (row.non2xx > 0) problems.push(`${row.non2xx} answers were not 2xx`);
  if (row.errors > 0) problems.push(`${row.errors} connection errors (${row.timeouts} timeouts)`);
  if (row.missing) problems.push(`${row.missing} stored messages never reached the dashboard socket`);
  if (row.duplicates) problems.push(`${row.duplicates} messages reached the dashboard socket more than once`);
  if (problems.length > 0 && row.samples.length > 0) problems.push(`samples: ${row.samples.join('; ')}`);
  return problems.map((p) => `${row.endpoint}: ${p}`);
}

export default defineScenario({
  key: 'http',
  title: 'HTTP API',
  order: 50,
  settings: (plan): HttpSettings => ({
    agents: 100,
    durationMs: pick(plan, 2_000, 10_000),
    maxRequests: 500_000,
    connections: { login: 8, agents: 32, message: 32 },
  }),
  async run(ctx, s) {
    const hub = await ctx.startHub('http', await ctx.newStore('http'));
    const api = new HubApi(hub.baseUrl);
    const admin = await api.login(ADMIN.username, ADMIN.password);
    const cast = await createCast(api, admin.token, 'http', 1, s.agents);
    const gen = await ctx.generator('http', 'bench/gen/http.ts');
    const member = cast.humans[0]!;
    const rows: EndpointRow[] = [];
    const from = Date.now();
    for (const endpoint of ['login', 'agents', 'message'] as const) {
      const params: HttpRunParams = {
        baseUrl: hub.baseUrl,
        request: endpoint,
        username: member.username,
        password: MEMBER_PASSWORD,
        bearer: endpoint === 'message' ? cast.agents[0]!.api_token : admin.token,
        watchUrl: endpoint === 'message' ? hub.socketUrl(admin.token) : undefined,
        tag: `http${endpoint}`,
        connections: s.connections[endpoint],
        durationMs: s.durationMs,
        maxRequests: s.maxRequests,
        drainMs: 30_000,
      };
      ctx.log(`http: ${LABELS[endpoint]} for ${s.durationMs / 1000}s over ${params.connections} connections`);
      const meter = await meterUsage(hub, [gen]);
      const result = await gen.call<HttpRunResult>('run', params, s.durationMs + 60_000);
      const row: EndpointRow = { ...result, endpoint: LABELS[endpoint], connections: params.connections, usage: await meter.stop() };
      ctx.log(`http: ${row.endpoint}: ${int(row.requestsPerSecond)} req/s, p99 ${ms(row.latency.p99)} ms`);
      rows.push(row);
    }
    await ctx.stopHub(hub, { from, to: Date.now() }, 'the HTTP runs');
    const [login, agents, message] = rows as [EndpointRow, EndpointRow, EndpointRow];
    return {
      summary: {
        loginPerSec: login.requestsPerSecond,
        loginP99Ms: login.latency.p99,
        agentsPerSec: agents.requestsPerSecond,
        agentsP99Ms: agents.latency.p99,
        messagesPerSec: message.requestsPerSecond,
        messagesP99Ms: message.latency.p99,
      },
      details: { runs: rows },
      markdown: [
        `### HTTP API (autocannon, keep-alive, one request in flight per connection; ${s.agents} agents listed)`,
        '',
        "Logins are bound by the password hash (scrypt, N=2^15), which runs on libuv's thread pool. Posted messages are stored and delivered to a dashboard socket, which checks each arrives exactly once.",
        '',
        `| endpoint | connections | requests | req/s | p50 ms | p99 ms | p99.9 ms | max ms | non-2xx / errors ${usageHeader}`,
        `|---|---:|---:|---:|---:|---:|---:|---:|---|${usageAlign}`,
        ...rows.map(
          (r) =>
            `| ${r.endpoint} | ${r.connections} | ${int(r.requests)} | **${int(r.requestsPerSecond)}** | ${ms(r.latency.p50)} | **${ms(r.latency.p99)}** | ${ms(r.latency.p999)} | ${ms(r.latency.max)} | ` +
            `${r.non2xx} / ${r.errors} ${usageCells(r.usage)}`,
        ),
      ],
      problems: rows.flatMap(problemsOf),
    };
  },
});
