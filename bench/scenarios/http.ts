// The HTTP API under load from autocannon: logins (a slow password hash, by design), the agent list,
// and dashboard messages posted by an agent (stored, then delivered to a dashboard socket that
// checks each arrives exactly once). Requests/s and latency per endpoint. On SQLite the agent list
// and the messages also run, right after the hub's, against the HTTP reference (bare
// ultimate-express routes doing the same SQL on the same file): the ratios say what the hub's
// layers cost per request, whatever the machine's load.
import type { HttpRunParams, HttpRunResult } from '../gen/protocol.js';
import { createCast, HubApi, MEMBER_PASSWORD } from '../lib/api.js';
import { pick } from '../lib/plan.js';
import { usageAlign, usageCells, usageHeader } from '../lib/report.js';
import { defineScenario } from '../lib/scenario.js';
import { ADMIN, startHttpReference, type Server } from '../lib/servers.js';
import { int, ms, round } from '../lib/stats.js';
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
  /** 'hub', or 'reference' for the bare routes. */
  server: 'hub' | 'reference';
  connections: number;
  usage: Usage;
  /** Server CPU (all threads) per answered request, in µs. */
  cpuUsPerRequest: number | null;
}

const cpuUsPerRequest = (r: HttpRunResult, u: Usage) => (r.requestsPerSecond > 0 ? (u.serverCpuPercent / 100 / r.requestsPerSecond) * 1e6 : null);

/** Hub over reference: how many times the reference's CPU per request the hub spends, and its req/s as a share. */
function ratioOf(hub: EndpointRow | undefined, ref: EndpointRow | undefined) {
  if (!hub || !ref) return { cpu: null, throughput: null };
  const cpu = hub.cpuUsPerRequest !== null && ref.cpuUsPerRequest ? hub.cpuUsPerRequest / ref.cpuUsPerRequest : null;
  const throughput = ref.requestsPerSecond > 0 ? hub.requestsPerSecond / ref.requestsPerSecond : null;
  return { cpu, throughput };
}

function problemsOf(row: EndpointRow): string[] {
  const problems: string[] = [];
  if (row.non2xx > 0) problems.push(`${row.non2xx} answers were not 2xx`);
  if (row.errors > 0) problems.push(`${row.errors} connection errors (${row.timeouts} timeouts)`);
  if (row.missing) problems.push(`${row.missing} stored messages never reached the dashboard socket`);
  if (row.duplicates) problems.push(`${row.duplicates} messages reached the dashboard socket more than once`);
  if (problems.length > 0 && row.samples.length > 0) problems.push(`samples: ${row.samples.join('; ')}`);
  return problems.map((p) => `${row.endpoint}${row.server === 'reference' ? ' (reference)' : ''}: ${p}`);
}

export default defineScenario({
  key: 'http',
  title: 'HTTP API',
  order: 50,
  settings: (plan): HttpSettings => ({
    agents: 100,
    durationMs: pick(plan, 1_500, 10_000),
    maxRequests: 500_000,
    connections: { login: 8, agents: 32, message: 32 },
  }),
  async run(ctx, s) {
    const store = await ctx.newStore('http');
    const hub = await ctx.startHub('http', store);
    const api = new HubApi(hub.baseUrl);
    const admin = await api.login(ADMIN.username, ADMIN.password);
    // A member per login connection: logins of one name from one address are checked four at a time.
    const cast = await createCast(api, admin.token, 'http', s.connections.login, s.agents);
    const gen = await ctx.generator('http', 'bench/gen/http.ts');
    const dbPath = store.env['DB_DRIVER'] === 'sqlite' ? store.env['DB_PATH'] : undefined;
    const reference: Server | undefined = dbPath ? await ctx.track(startHttpReference(dbPath)) : undefined;
    const rows: EndpointRow[] = [];
    const refRows: EndpointRow[] = [];
    const from = Date.now();
    const measure = async (server: Server, row: Omit<EndpointRow, keyof HttpRunResult | 'usage' | 'cpuUsPerRequest'>, params: HttpRunParams) => {
      ctx.log(`http: ${row.server} ${row.endpoint} for ${s.durationMs / 1000}s over ${params.connections} connections`);
      const meter = await meterUsage(server, [gen]);
      const result = await gen.call<HttpRunResult>('run', params, s.durationMs + 60_000);
      const usage = await meter.stop();
      const done: EndpointRow = { ...result, ...row, usage, cpuUsPerRequest: cpuUsPerRequest(result, usage) };
      ctx.log(
        `http: ${row.server} ${row.endpoint}: ${int(done.requestsPerSecond)} req/s, p99 ${ms(done.latency.p99)} ms, ${int(done.cpuUsPerRequest ?? 0)} µs CPU/request`,
      );
      return done;
    };
    for (const endpoint of ['login', 'agents', 'message'] as const) {
      const params: HttpRunParams = {
        baseUrl: hub.baseUrl,
        request: endpoint,
        usernames: cast.humans.map((h) => h.username),
        password: MEMBER_PASSWORD,
        bearer: endpoint === 'message' ? cast.agents[0]!.api_token : admin.token,
        watchUrl: endpoint === 'message' ? hub.socketUrl(admin.token) : undefined,
        tag: `http${endpoint}`,
        connections: s.connections[endpoint],
        durationMs: s.durationMs,
        maxRequests: s.maxRequests,
        drainMs: 30_000,
      };
      rows.push(await measure(hub, { endpoint: LABELS[endpoint], server: 'hub', connections: params.connections }, params));
      if (reference && endpoint !== 'login') {
        // The same load on the bare routes, which name their caller by id instead of a credential.
        const caller = endpoint === 'message' ? cast.agents[0]!.id : admin.user.id;
        const refParams: HttpRunParams = {
          ...params,
          baseUrl: `http://127.0.0.1:${reference.port}`,
          query: `?uid=${caller}`,
          watchUrl: undefined,
          tag: `httpref${endpoint}`,
        };
        refRows.push(await measure(reference, { endpoint: LABELS[endpoint], server: 'reference', connections: params.connections }, refParams));
      }
    }
    await ctx.stopHub(hub, { from, to: Date.now() }, 'the HTTP runs (hub and reference: the hub idles while the reference runs)');
    const [login, agents, message] = rows as [EndpointRow, EndpointRow, EndpointRow];
    const refAgents = refRows.find((r) => r.endpoint === agents.endpoint);
    const refMessage = refRows.find((r) => r.endpoint === message.endpoint);
    const agentsRatio = ratioOf(agents, refAgents);
    const messageRatio = ratioOf(message, refMessage);
    const x = (v: number | null) => (v === null ? '—' : `${round(v)}×`);
    const table = (list: EndpointRow[]) =>
      list.map(
        (r) =>
          `| ${r.server === 'hub' ? r.endpoint : `${r.endpoint} (reference)`} | ${r.connections} | ${int(r.requests)} | **${int(r.requestsPerSecond)}** | ${r.cpuUsPerRequest === null ? '—' : int(r.cpuUsPerRequest)} | ${ms(r.latency.p50)} | **${ms(r.latency.p99)}** | ${ms(r.latency.p999)} | ${ms(r.latency.max)} | ` +
          `${r.non2xx} / ${r.errors} ${usageCells(r.usage)}`,
      );
    return {
      summary: {
        loginPerSec: login.requestsPerSecond,
        loginP99Ms: login.latency.p99,
        agentsPerSec: agents.requestsPerSecond,
        agentsP99Ms: agents.latency.p99,
        messagesPerSec: message.requestsPerSecond,
        messagesP99Ms: message.latency.p99,
        refAgentsPerSec: refAgents?.requestsPerSecond ?? null,
        refMessagesPerSec: refMessage?.requestsPerSecond ?? null,
        agentsCpuPerRequestToRef: agentsRatio.cpu,
        messagesCpuPerRequestToRef: messageRatio.cpu,
        agentsToRef: agentsRatio.throughput,
        messagesToRef: messageRatio.throughput,
      },
      details: { runs: rows, reference: refRows },
      markdown: [
        `### HTTP API (autocannon, keep-alive, one request in flight per connection; ${s.agents} agents listed)`,
        '',
        "Logins are bound by the password hash (scrypt, N=2^15), which runs on libuv's thread pool. Posted messages are stored and delivered to a dashboard socket, which checks each arrives exactly once. " +
          '*(reference)* rows are bare ultimate-express routes doing the same SQL on the same SQLite file, measured right after the hub under the same load: the caller named by id instead of a credential, no validation, no metrics or request log, messages group-committed per event-loop turn and not delivered. ' +
          '*CPU µs / request* is the server process (all threads) per answered request.',
        '',
        `| endpoint | connections | requests | req/s | CPU µs / request | p50 ms | p99 ms | p99.9 ms | max ms | non-2xx / errors ${usageHeader}`,
        `|---|---:|---:|---:|---:|---:|---:|---:|---:|---|${usageAlign}`,
        ...table([...rows, ...refRows]),
        '',
        refRows.length > 0
          ? `Hub over reference, CPU per request (target ≤ 2×): agents list **${x(agentsRatio.cpu)}**, messages **${x(messageRatio.cpu)}**; req/s as a share of the reference's: ${x(agentsRatio.throughput)} and ${x(messageRatio.throughput)}.`
          : 'No reference on PostgreSQL: the bare routes read the SQLite file.',
      ],
      problems: [...rows, ...refRows].flatMap(problemsOf),
    };
  },
});
