// Many agents over many nodes: N hub processes on one PostgreSQL database and a private Redis,
// agents inserted in bulk into the store, then connected straight to the nodes' ports (no balancer:
// a balancer process holds two descriptors per connection, so one could carry at most ~10,000 of
// them under this machine's 20,000-file limit) by generator processes each under that limit, from
// several loopback source addresses. Measured: memory per socket on each node, connect rate,
// presence convergence (each node asked how many agents it sees ONLINE), presence writes reaching
// the store, targeted CHAT across nodes against one node holding 10,000 agents in the same run, a
// broadcast, the bus's bytes and Redis's CPU, and the loss of one node (kill -9) under acknowledged
// traffic: reconnection, ONLINE again everywhere, ACKed frames checked against the store, the other
// nodes' latency meanwhile.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ScaleChatterResult, ScaleConnectParams, ScaleConnectResult, ScaleStatus } from '../gen/protocol.js';
import { connectRig, disconnectRig, highestKeptUp, maxSustained, openRow, runSeries, seriesProblems, type SeriesResult } from '../phases/load.js';
import { targetedSettings, type TargetedSettings } from '../phases/targeted.js';
import { createCast, HubApi } from '../lib/api.js';
import { insertAgents } from '../lib/bulkAgents.js';
import { freePort, pingSampler, sleep } from '../lib/net.js';
import { pick } from '../lib/plan.js';
import { CpuMeter, hardFileLimit, kernelSocketKb, rssKb } from '../lib/procfs.js';
import { markdownSection } from '../lib/report.js';
import { defineScenario, type ScenarioContext } from '../lib/scenario.js';
import { ADMIN, type Hub, type Memory } from '../lib/servers.js';
import type { Generator } from '../lib/spawn.js';
import { int, ms, percentiles } from '../lib/stats.js';
import { postgresStores } from '../lib/stores.js';

/** Open files a hub keeps for itself besides its sockets (database pool, Redis, logs, listening socket). */
const FD_HEADROOM = 500;
/** Sockets per generator process: inside its open-file limit with room for reconnects. */
const PER_GENERATOR = 14_000;
/** Sockets per source address: a loopback address has about 28k ephemeral ports, shared by every destination. */
const PER_ADDRESS = 20_000;
/** The client library's reconnect policy (hubClient.ts DEFAULT_RECONNECT, RETRY_FLOOR_MS). */
const RECONNECT = { initialMs: 500, maxMs: 5_000, floorMs: 100 };

interface ScaleSettings extends TargetedSettings {
  /** Agents connected over the nodes (`agents` is the targeted load's senders). */
  population: number;
  nodes: number;
  /** Why `nodes` is what it is (raised so the survivors of a node loss stay under the file limit). */
  nodesWhy: string;
  fileLimit: number;
  generators: number;
  concurrency: number;
  /** The single-node reference's idle agents. */
  singleAgents: number;
  /** Broadcast: dashboards spread over the nodes and the open-loop rates of SYSTEM_LOG. */
  dashboards: number;
  broadcastRates: number[];
  /** Acknowledged SYSTEM_LOG per second (all generators) while one node is killed. */
  chatterRate: number;
  chatterMs: number;
  killAfterMs: number;
  nodeTtl: string;
  /**
   * Connecting stops after this long (BENCH_SCALE_CONNECT_BUDGET_S): on a machine too slow or too busy
   * for the whole population, the run goes on with the sockets it has and says how far it got.
   */
  connectBudgetMs: number;
  /** How long presence may take to converge before the scenario gives up. */
  convergeTimeoutMs: number;
}

interface NodeFigures {
  node: string;
  sockets: number;
  rssMb: number;
  rssKbPerSocket: number;
  heapKbPerSocket: number;
  externalKbPerSocket: number;
  onlineSeen: number;
}

/**
 * The load for `plan` on a machine whose processes may open `fileLimit` files; `env` may change the
 * sizes (BENCH_SCALE_AGENTS, BENCH_SCALE_NODES, BENCH_SCALE_SINGLE_AGENTS, BENCH_SCALE_CONNECT_BUDGET_S).
 */
export function settingsOf(plan: Parameters<typeof pick>[0], fileLimit = hardFileLimit(), env: NodeJS.ProcessEnv = process.env): ScaleSettings {
  const envInt = (name: string): number | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : Number.parseInt(v, 10);
  };
  const population = envInt('BENCH_SCALE_AGENTS') ?? pick(plan, 3_000, 100_000);
  const requested = envInt('BENCH_SCALE_NODES') ?? pick(plan, 3, 6);
  // After one node dies its agents spread over the others, which must still fit under the file limit.
  const needed = Math.ceil(population / (fileLimit - FD_HEADROOM)) + 1;
  const nodes = Math.max(requested, needed);
  const t = targetedSettings(plan, pick(plan, [1_000], [1_000, 5_000]));
  return {
    ...t,
    windows: plan.windows ?? [256],
    closedMs: pick(plan, 2_000, 10_000),
    openMs: pick(plan, 1_500, 8_000),
    warmupMs: pick(plan, 1_000, 3_000),
    population,
    nodes,
    nodesWhy:
      nodes > requested
        ? `raised from ${requested}: after one node is lost, ${int(population)} agents over ${nodes - 1} nodes must stay under the ${int(fileLimit)}-file limit of a process`
        : 'as asked',
    fileLimit,
    generators: Math.max(2, Math.ceil(population / PER_GENERATOR)),
    concurrency: 128,
    connectBudgetMs: (envInt('BENCH_SCALE_CONNECT_BUDGET_S') ?? pick(plan, 120, 540)) * 1000,
    singleAgents: envInt('BENCH_SCALE_SINGLE_AGENTS') ?? pick(plan, 1_000, 10_000),
    dashboards: 10 * nodes,
    broadcastRates: pick(plan, [100], [100, 300]),
    chatterRate: pick(plan, 200, 500),
    chatterMs: pick(plan, 12_000, 40_000),
    killAfterMs: pick(plan, 3_000, 5_000),
    nodeTtl: '10s',
    convergeTimeoutMs: pick(plan, 60_000, 300_000),
  };
}

/** A private Redis for the run, so its CPU is the bus's alone (the shared one serves other people too). */
async function privateRedis(ctx: ScenarioContext): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxclients', '10000'],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}`, { signal: AbortSignal.timeout(500) }).then(
      () => true,
      (err: unknown) => !String((err as Error & { cause?: { code?: string } }).cause?.code).includes('ECONNREFUSED'),
    );
    if (ok) break;
    await sleep(50);
  }
  ctx.log(`scale: private Redis on ${url} (pid ${child.pid})`);
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function adminToken(hub: Hub): Promise<string> {
  return (await new HubApi(hub.baseUrl).login(ADMIN.username, ADMIN.password)).token;
}

/** What one node says of itself: its sockets and, in a cluster, how many agents it sees ONLINE. */
async function inspect(hub: Hub, token: string): Promise<{ sockets: number; online: number; nodes: number }> {
  const res = await fetch(`${hub.baseUrl}/api/admin/actors?limit=1`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(20_000) });
  if (!res.ok) throw new Error(`GET /api/admin/actors → ${res.status}`);
  const body = (await res.json()) as { connections: { total: number }; node?: { online_agents: number; nodes: unknown[] } };
  return { sockets: body.connections.total, online: body.node?.online_agents ?? NaN, nodes: body.node?.nodes.length ?? 1 };
}

/** A counter of /metrics (summed over its label sets). */
async function metric(hub: Hub, name: string): Promise<number> {
  const text = await (await fetch(`${hub.baseUrl}/metrics`, { signal: AbortSignal.timeout(20_000) })).text();
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name) && (line[name.length] === ' ' || line[name.length] === '{')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

/** Row updates of `users` (presence writes) the store has counted, and its committed transactions. */
async function storeCounters(db: pg.Client): Promise<{ userUpdates: number; commits: number }> {
  const u = await db.query<{ n: string }>(`SELECT n_tup_upd + n_tup_hot_upd * 0 AS n FROM pg_stat_user_tables WHERE relname = 'users'`);
  const c = await db.query<{ n: string }>(`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`);
  return { userUpdates: Number(u.rows[0]?.n ?? NaN), commits: Number(c.rows[0]?.n ?? NaN) };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Spreads `tokens` over the generators; token i's first node is `home(i)`. Each generator has its own source addresses. */
async function connectAll(
  gens: Generator[],
  ports: number[],
  tokens: string[],
  home: (i: number) => number,
  concurrency: number,
  salt: number,
  budgetMs: number,
) {
  const deadline = Date.now() + budgetMs;
  const results = await Promise.all(
    gens.map((gen, k) => {
      const mine: number[] = [];
      for (let i = k; i < tokens.length; i += gens.length) mine.push(i);
      const addresses = Array.from({ length: Math.max(1, Math.ceil(mine.length / PER_ADDRESS)) }, (_, a) => `127.${salt}.${1 + a}.${10 + k}`);
      return gen.call<ScaleConnectResult>(
        'connect',
        {
          ports,
          tokens: mine.map((i) => tokens[i]!),
          homes: mine.map(home),
          localAddresses: addresses,
          concurrency,
          deadline,
          reconnect: RECONNECT,
        } satisfies ScaleConnectParams,
        budgetMs + 120_000,
      );
    }),
  );
  return {
    connected: sum(results.map((r) => r.connected)),
    errors: results.flatMap((r) => r.errors),
    startedAt: Math.min(...results.map((r) => r.startedAt)),
    endedAt: Math.max(...results.map((r) => r.endedAt)),
  };
}

const statusOf = async (gens: Generator[]) => {
  const all = await Promise.all(gens.map((g) => g.call<ScaleStatus>('status', {}, 30_000)));
  return {
    open: sum(all.map((s) => s.open)),
    down: sum(all.map((s) => s.down)),
    reconnects: sum(all.map((s) => s.reconnects)),
    failedAttempts: sum(all.map((s) => s.failedAttempts)),
    refusedBusy: sum(all.map((s) => s.refusedBusy)),
    failures: all.flatMap((s) => s.failures).slice(0, 5),
    lastReconnectAt: Math.max(...all.map((s) => s.lastReconnectAt)),
    perNode: all[0]!.perNode.map((_, n) => sum(all.map((s) => s.perNode[n] ?? 0))),
  };
};

/**
 * A poll that may fail without ending the scenario: on a starved machine a generator or node can miss
 * one call's deadline while the phase it watches is still going. The failure is logged and kept in
 * `failures`; the poll answers undefined and the caller polls again until its own deadline.
 */
async function polled<T>(what: string, poll: () => Promise<T>, failures: string[], log: (l: string) => void): Promise<T | undefined> {
  try {
    return await poll();
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    failures.push(text);
    log(`scale: ${what}: a poll failed, polling on: ${text}`);
    return undefined;
  }
}

/** Waits until every hub sees at least `want` agents ONLINE; answers the time it took (ms since `from`) or NaN. */
async function converge(
  hubs: Hub[],
  token: string,
  want: number,
  from: number,
  timeoutMs: number,
  log: (l: string) => void,
  label: string,
  failures: string[],
) {
  let lastLog = 0;
  for (;;) {
    // A node that did not answer counts as not converged yet.
    const seen = await Promise.all(hubs.map((h) => polled(label, () => inspect(h, token), failures, log).then((i) => i?.online ?? NaN)));
    if (seen.every((n) => n >= want)) return { ms: Date.now() - from, seen };
    if (Date.now() - from > timeoutMs) return { ms: NaN, seen };
    if (Date.now() - lastLog > 5_000) {
      lastLog = Date.now();
      log(`scale: ${label}: ONLINE seen per node ${seen.map(int).join(' / ')} of ${int(want)}`);
    }
    await sleep(500);
  }
}

/** A line for the report when polls failed (they did not end the run, but the figures they watch may be late). */
const pollNote = (phase: string, failures: string[]) =>
  failures.length === 0 ? [] : [`${phase}, ${failures.length} status or inspection call(s) failed and were made again; the first: ${failures[0]}`, ''];

/** CPU-ms of `pids` per message over a series. */
async function measured(pids: number[], run: () => Promise<SeriesResult>): Promise<{ result: SeriesResult; cpuMsPerMessage: number; cpuMsByPid: number[] }> {
  const meters = pids.map((p) => new CpuMeter(p));
  const result = await run();
  const used = meters.map((m) => m.used());
  const messages = [result.warmup, ...result.rows].reduce((n, r) => n + r.sent, 0);
  return { result, cpuMsPerMessage: messages > 0 ? sum(used) / messages : 0, cpuMsByPid: used };
}

export default defineScenario({
  key: 'scale',
  title: 'Many agents over many nodes (PostgreSQL + Redis), node loss at that scale',
  order: 70,
  settings: (plan) => settingsOf(plan),
  async run(ctx, s) {
    // Its own scratch databases (the scenario needs PostgreSQL also on a SQLite run) and Redis go once
    // every node and generator is stopped, also when the scenario fails: never dropped under a live node.
    const stores = await postgresStores(ctx.plan.pgUrl);
    ctx.afterStop(() => stores.dispose());
    const redis = await privateRedis(ctx);
    ctx.afterStop(() => redis.stop());
    const problems: string[] = [];
    // Every hub of the run shares it, so the agents inserted here hold working tokens (never printed: settings are).
    const hubEnv = { TOKEN_SECRET: randomBytes(24).toString('hex') };
    ctx.log(`scale: ${int(s.population)} agents over ${s.nodes} nodes (${s.nodesWhy}), ${s.generators} generator processes; file limit ${int(s.fileLimit)}`);
    const gens = await Promise.all(Array.from({ length: s.generators }, (_, k) => ctx.generator(`scale${k}`, 'bench/gen/scale.ts')));

    // ---- One node with the reference population: the same targeted load, for the ratio.
    const singleStore = await stores.create('scale_single');
    const single = await ctx.startHub('scale-single', singleStore, hubEnv);
    const singleAgents = await insertAgents(singleStore.env['DATABASE_URL']!, hubEnv.TOKEN_SECRET, 'single', s.singleAgents);
    const singleConnect = await connectAll(
      gens,
      [single.port],
      singleAgents.map((a) => a.token),
      () => 0,
      s.concurrency,
      1,
      s.connectBudgetMs,
    );
    if (singleConnect.connected < s.singleAgents)
      problems.push(`single: ${s.singleAgents - singleConnect.connected} sockets failed to connect: ${singleConnect.errors.slice(0, 3).join('; ')}`);
    ctx.log(`scale: single node holds ${int(singleConnect.connected)} agents`);
    const singleToken = await adminToken(single);
    const singleCast = await createCast(new HubApi(single.baseUrl), singleToken, 'ssingle', s.humans, s.agents);
    const singleRig = await connectRig(ctx, single, {
      receiverUrls: singleCast.humans.map((h) => single.socketUrl(h.token)),
      senderUrls: singleCast.agents.map((a) => single.socketUrl(a.api_token)),
      send: { frame: 'chat', targets: singleCast.humans.map((h) => h.id) },
    });
    const alone = await measured([single.pid], () => runSeries(singleRig, 'ssingle', s, ctx.log));
    await disconnectRig(singleRig);
    await Promise.all(gens.map((g) => g.call('disconnect', {}, 120_000)));
    await ctx.stopHub(single, alone.result.window, 'the single-node reference');

    // ---- The cluster.
    const store = await stores.create('scale');
    const db = new pg.Client({ connectionString: store.env['DATABASE_URL'] });
    // The PostgreSQL server is shared: another user's test may end every connection. The next
    // query then fails (and the run says so) instead of an unhandled 'error' ending the bench.
    db.on('error', (err) => ctx.log(`scale: the statistics connection to PostgreSQL failed: ${err.message}`));
    await db.connect();
    ctx.afterStop(() => db.end());
    const cluster = `bench-${randomBytes(3).toString('hex')}`;
    const envOf = (k: number) => ({ ...hubEnv, REDIS_URL: redis.url, NODE_ID: `n${k + 1}`, CLUSTER_NAME: cluster, CLUSTER_NODE_TTL: s.nodeTtl });
    // The first node applies the migrations; the others start together.
    const first = await ctx.startHub('scale-n1', store, envOf(0));
    const rest = await Promise.all(Array.from({ length: s.nodes - 1 }, (_, k) => ctx.startHub(`scale-n${k + 2}`, store, envOf(k + 1))));
    const hubs = [first, ...rest];
    const ports = hubs.map((h) => h.port);
    const token = await adminToken(first);

    const t0 = performance.now();
    const agents = await insertAgents(store.env['DATABASE_URL']!, hubEnv.TOKEN_SECRET, 'agent', s.population);
    const registerPerSec = (s.population * 1000) / (performance.now() - t0);
    ctx.log(`scale: ${int(s.population)} agents inserted at ${int(registerPerSec)}/s`);

    await sleep(2_000);
    const rssBefore = hubs.map((h) => rssKb(h.pid));
    const memBefore = await Promise.all(hubs.map((h) => h.memory()));
    const kernelBefore = kernelSocketKb();
    const storeBefore = await storeCounters(db);
    const hubCpu = hubs.map((h) => new CpuMeter(h.pid));
    const genCpu = gens.map((g) => new CpuMeter(g.pid));
    const redisCpu = new CpuMeter(redis.pid);
    await Promise.all(hubs.map((h) => h.loop()));

    ctx.log(`scale: connecting ${int(s.population)} agents straight to ${s.nodes} nodes`);
    const connectStart = Date.now();
    const connecting = connectAll(
      gens,
      ports,
      agents.map((a) => a.token),
      (i) => i % s.nodes,
      s.concurrency,
      2,
      s.connectBudgetMs,
    );
    const connected = await connecting;
    const lastConnectAt = Date.now();
    ctx.log(`scale: ${int(connected.connected)} connected in ${((connected.endedAt - connected.startedAt) / 1000).toFixed(1)} s`);
    // What the rest of the run counts on: every agent, or as many as connected within the budget.
    const held = connected.connected;
    const outOfBudget = connected.errors.filter((e) => e.includes('connect budget')).length > 0;
    if (held < s.population && !outOfBudget) problems.push(`${s.population - held} sockets failed to connect: ${connected.errors.slice(0, 3).join('; ')}`);
    if (outOfBudget)
      ctx.log(`scale: the connect budget (${s.connectBudgetMs / 1000} s) ran out at ${int(held)} of ${int(s.population)} agents: the run goes on with those`);
    const connectLoop = await Promise.all(hubs.map((h) => h.loop()));
    const convergeFailures: string[] = [];
    const conv = await converge(hubs, token, held, lastConnectAt, s.convergeTimeoutMs, ctx.log, 'presence', convergeFailures);
    const convergedAt = Date.now();
    if (!Number.isFinite(conv.ms))
      problems.push(`presence did not converge within ${s.convergeTimeoutMs / 1000} s of the last connect: ONLINE per node ${conv.seen.join(' / ')}`);
    const storeAfter = await storeCounters(db);
    const connectCpuMs = hubCpu.map((m) => m.used());
    const genConnectCpuMs = sum(genCpu.map((m) => m.used()));
    const redisConnectCpuMs = redisCpu.used();
    const presenceWindowS = (convergedAt - connectStart) / 1000;
    const presenceWritesPerSec = (storeAfter.userUpdates - storeBefore.userUpdates) / presenceWindowS;
    const commitsPerSec = (storeAfter.commits - storeBefore.commits) / presenceWindowS;
    ctx.log(
      `scale: ONLINE on every node ${(conv.ms / 1000).toFixed(1)} s after the last connect; ${int(storeAfter.userUpdates - storeBefore.userUpdates)} presence row updates ` +
        `(${int(presenceWritesPerSec)}/s, ${int(commitsPerSec)} commits/s)`,
    );

    await sleep(3_000);
    const kernel = kernelSocketKb();
    const perNode: NodeFigures[] = await Promise.all(
      hubs.map(async (h, k) => {
        const seen = await inspect(h, token);
        const m: Memory = await h.memory();
        const rss = rssKb(h.pid);
        return {
          node: `n${k + 1}`,
          sockets: seen.sockets,
          rssMb: rss / 1024,
          rssKbPerSocket: (rss - rssBefore[k]!) / seen.sockets,
          heapKbPerSocket: (m.heapUsed - memBefore[k]!.heapUsed) / 1024 / seen.sockets,
          externalKbPerSocket: (m.external - memBefore[k]!.external) / 1024 / seen.sockets,
          onlineSeen: seen.online,
        };
      }),
    );
    const totalSockets = sum(perNode.map((n) => n.sockets));
    const totalRssDeltaKb = sum(hubs.map((h, k) => rssKb(h.pid) - rssBefore[k]!));
    const totalHeapKb = sum(perNode.map((n) => n.heapKbPerSocket * n.sockets));
    const kernelKbPerSocket = (kernel.buffersKb - kernelBefore.buffersKb + kernel.slabKb - kernelBefore.slabKb) / Math.max(1, connected.connected);
    const connectPerSec = (connected.connected * 1000) / (connected.endedAt - connected.startedAt);
    ctx.log(`scale: ${int(totalSockets)} sockets, ${(totalRssDeltaKb / totalSockets).toFixed(1)} KB RSS per socket over all nodes`);

    // ---- Targeted CHAT across nodes at this population: senders and humans spread over every node.
    const cast = await createCast(new HubApi(first.baseUrl), token, 'scl', s.humans, s.agents);
    const chatRig = await connectRig(ctx, first, {
      receiverUrls: cast.humans.map((h, i) => hubs[(i + 1) % s.nodes]!.socketUrl(h.token)),
      senderUrls: cast.agents.map((a, i) => hubs[i % s.nodes]!.socketUrl(a.api_token)),
      send: { frame: 'chat', targets: cast.humans.map((h) => h.id) },
    });
    const busBefore = await Promise.all(
      hubs.map(async (h) => ({ bytes: await metric(h, 'hub_cluster_bus_published_bytes_total'), count: await metric(h, 'hub_cluster_bus_published_total') })),
    );
    const redisChat = new CpuMeter(redis.pid);
    const across = await measured(
      hubs.map((h) => h.pid),
      () => runSeries(chatRig, 'scl', s, ctx.log),
    );
    const redisChatCpuMs = redisChat.used();
    const busAfter = await Promise.all(
      hubs.map(async (h) => ({ bytes: await metric(h, 'hub_cluster_bus_published_bytes_total'), count: await metric(h, 'hub_cluster_bus_published_total') })),
    );
    await disconnectRig(chatRig);
    const busBytes = sum(busAfter.map((b, k) => b.bytes - busBefore[k]!.bytes));
    const busCount = sum(busAfter.map((b, k) => b.count - busBefore[k]!.count));
    const chatMessages = [across.result.warmup, ...across.result.rows].reduce((n, r) => n + r.sent, 0);

    // ---- Broadcast: dashboards spread over every node, reports from agents on every node.
    const fanCast = await createCast(new HubApi(first.baseUrl), token, 'sclfan', 10, 20);
    const fanRig = await connectRig(ctx, first, {
      receiverUrls: Array.from({ length: s.dashboards }, (_, i) => hubs[i % s.nodes]!.socketUrl(fanCast.humans[i % fanCast.humans.length]!.token)),
      senderUrls: fanCast.agents.map((a, i) => hubs[i % s.nodes]!.socketUrl(a.api_token)),
      send: { frame: 'log' },
      latencySockets: 10,
    });
    const fan = await runSeries(
      fanRig,
      'sclfan',
      { ...s, warmupRate: s.broadcastRates[0]! / 2, openRates: s.broadcastRates, windows: [], closedMs: 0, stopWhenBehind: true },
      ctx.log,
    );
    await disconnectRig(fanRig);

    // ---- Node loss: kill -9 the last node under acknowledged traffic from every generator.
    const victim = hubs.length - 1;
    const survivors = hubs.filter((_, k) => k !== victim);
    const before = await statusOf(gens);
    const heldByVictim = before.perNode[victim] ?? 0;
    await Promise.all(survivors.map((h) => h.loop()));
    const pings = survivors.map((h) => pingSampler(h.pingUrl, 100));
    ctx.afterStop(async () => void pings.forEach((p) => p.stop()));
    const chatter = Promise.all(
      gens.map((g, k) =>
        g.call<ScaleChatterResult>(
          'chatter',
          { tag: `kill${k}`, rate: s.chatterRate / gens.length, durationMs: s.chatterMs, drainMs: 30_000 },
          s.chatterMs + 90_000,
        ),
      ),
    );
    // Awaited after the watch below; if the watch throws first, its failure must not go unhandled.
    chatter.catch(() => undefined);
    await sleep(s.killAfterMs);
    ctx.log(`scale: kill -9 node n${victim + 1}, which holds ${int(heldByVictim)} agents`);
    const killedAt = Date.now();
    await hubs[victim]!.kill('SIGKILL');
    // Watched from the kill: sockets open again, every agent ONLINE on every survivor (and the lowest
    // count each saw meanwhile: did any agent go OFFLINE?), and the dead node reaped after CLUSTER_NODE_TTL.
    let allOpenAt = NaN;
    let onlineAt = NaN;
    let reapedAt = NaN;
    let worst = before;
    let seenLast: number[] = [];
    const minOnline = survivors.map(() => Infinity);
    /** Status and inspection calls that failed while watching the node loss (the watch goes on). */
    const pollFailures: string[] = [];
    for (;;) {
      const poll = await polled('node loss', () => Promise.all([statusOf(gens), Promise.all(survivors.map((h) => inspect(h, token)))]), pollFailures, ctx.log);
      if (poll === undefined) {
        if (Date.now() - killedAt > 120_000) {
          problems.push(`node loss: 120 s after the kill the last poll failed: ${pollFailures.at(-1)}`);
          break;
        }
        await sleep(500);
        continue;
      }
      const [st, seen] = poll;
      worst = st;
      seenLast = seen.map((x) => x.online);
      seen.forEach((x, k) => (minOnline[k] = Math.min(minOnline[k]!, x.online)));
      const allOpen = st.down === 0 && st.open >= before.open;
      if (allOpen && Number.isNaN(allOpenAt)) allOpenAt = st.lastReconnectAt;
      const reaped = seen.every((x) => x.nodes <= survivors.length);
      if (reaped && Number.isNaN(reapedAt)) reapedAt = Date.now();
      const online = allOpen && seen.every((x) => x.online >= held);
      // The time it became true for good: reset when it stops holding.
      if (!online) onlineAt = NaN;
      else if (Number.isNaN(onlineAt)) onlineAt = Date.now();
      if (online && reaped) break;
      if (Date.now() - killedAt > 120_000) {
        problems.push(
          `node loss: 120 s after the kill ${st.down} sockets are down, ONLINE per survivor ${seenLast.join(' / ')}, dead node ${reaped ? '' : 'not '}reaped (${st.failures.join('; ')})`,
        );
        break;
      }
      await sleep(500);
    }
    const reconnectMs = allOpenAt - killedAt;
    const onlineMs = onlineAt - killedAt;
    const reapedMs = reapedAt - killedAt;
    ctx.log(
      `scale: all ${int(worst.open)} sockets open again ${(reconnectMs / 1000).toFixed(1)} s after the kill (${int(worst.reconnects)} reconnects, ${int(worst.failedAttempts)} failed attempts); ` +
        `ONLINE everywhere at ${(onlineMs / 1000).toFixed(1)} s; lowest ONLINE seen per survivor ${minOnline.map(int).join(' / ')}; reaped at ${(reapedMs / 1000).toFixed(1)} s`,
    );
    const loopDuring = await Promise.all(survivors.map((h) => h.loop()));
    const pingMs = pings.map((p) => p.stop());
    const chatted = await chatter;
    const acked = chatted.flatMap((c) => c.acked);
    let stored = 0;
    for (let i = 0; i < acked.length; i += 10_000) {
      const r = await db.query<{ n: string }>('SELECT count(*) AS n FROM messages WHERE local_id = ANY($1::text[])', [acked.slice(i, i + 10_000)]);
      stored += Number(r.rows[0]!.n);
    }
    const lostAcked = acked.length - stored;
    if (lostAcked > 0) problems.push(`node loss: ${lostAcked} acknowledged frames are not in the store`);
    const chatterErrors = sum(chatted.map((c) => c.errors));
    if (chatterErrors > 0)
      problems.push(
        `node loss: ${chatterErrors} ERROR frames, e.g. ${chatted
          .flatMap((c) => c.errorSamples)
          .slice(0, 2)
          .join(' | ')}`,
      );
    const after = await Promise.all(survivors.map((h) => inspect(h, token)));

    await Promise.all(gens.map((g) => g.call('disconnect', {}, 300_000)));
    // Under --profile the nodes' profiles cover the connects, or with BENCH_SCALE_PROFILE=chat the targeted chat across nodes.
    const chatProfile = process.env.BENCH_SCALE_PROFILE === 'chat';
    for (const [k, h] of hubs.entries())
      if (k !== victim)
        await ctx.stopHub(
          h,
          chatProfile ? across.result.window : { from: connectStart, to: convergedAt },
          chatProfile
            ? `targeted CHAT across ${s.nodes} nodes (node n${k + 1})`
            : `connecting ${int(s.population)} agents until presence converged (node n${k + 1})`,
        );

    problems.push(
      ...seriesProblems(alone.result).map((p) => `single: ${p}`),
      ...seriesProblems(across.result).map((p) => `across nodes: ${p}`),
      ...seriesProblems(fan).map((p) => `broadcast: ${p}`),
    );
    const bestAlone = maxSustained(alone.result.rows)?.messageRate ?? null;
    const bestAcross = maxSustained(across.result.rows)?.messageRate ?? null;
    const ratio = bestAlone && bestAcross ? bestAcross / bestAlone : null;
    const fanBest = highestKeptUp(fan.rows);
    const pingAll = percentiles(pingMs.flat());
    const rssPerSocket = totalRssDeltaKb / Math.max(1, totalSockets);
    const summary = {
      agents: s.population,
      connected: held,
      nodes: s.nodes,
      sockets: totalSockets,
      rssPerSocketKB: rssPerSocket,
      heapPerSocketKB: totalHeapKb / Math.max(1, totalSockets),
      kernelKBPerConnection: kernelKbPerSocket,
      connectPerSec,
      registerPerSec,
      presenceConvergedSec: conv.ms / 1000,
      presenceWritesPerSec,
      clusterMsgPerSec: bestAcross,
      singleMsgPerSec: bestAlone,
      clusterToSingle: ratio,
      busBytesPerMessage: busCount > 0 ? busBytes / chatMessages : null,
      redisCpuUsPerMessage: (redisChatCpuMs * 1000) / Math.max(1, chatMessages),
      broadcastDeliveriesPerSec: fanBest?.deliveredRate ?? null,
      nodeLossAgents: heldByVictim,
      nodeLossReconnectSec: reconnectMs / 1000,
      nodeLossOnlineSec: onlineMs / 1000,
      nodeLossAckedLost: lostAcked,
      nodeLossSurvivorPingP99Ms: pingAll.p99,
    };
    const loopP99 = (l: { p99: number }[]) => l.map((x) => ms(x.p99)).join(' / ');
    const markdown = [
      `### Scale: ${int(held)} agents${held < s.population ? ` (of ${int(s.population)}: the connect budget of ${s.connectBudgetMs / 1000} s ran out)` : ''} over ${s.nodes} nodes (PostgreSQL + Redis)`,
      '',
      `${s.nodes} hub processes (${s.nodesWhy}) on one PostgreSQL database and a private Redis; ${s.generators} generator processes (at most ${int(PER_GENERATOR)} sockets each, ` +
        `under the ${int(s.fileLimit)}-file limit of a process) connect straight to the nodes' ports, agent i to node i mod ${s.nodes}, from their own loopback source addresses ` +
        `(127.2.a.g, one per ${int(PER_ADDRESS)} sockets, so no address runs out of ephemeral ports). No balancer: one balancer process holds two descriptors per connection, ` +
        `so it would carry at most ~${int(s.fileLimit / 2)} here. Agents inserted in bulk into the store at ${int(registerPerSec)}/s (the rows the hub's registration writes).`,
      '',
      '| node | sockets | RSS MB | **RSS KB / socket** | JS heap KB / socket | external KB / socket | agents it sees ONLINE | CPU s while connecting | loop lag p99 ms while connecting |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...perNode.map(
        (n, k) =>
          `| ${n.node} | ${int(n.sockets)} | ${n.rssMb.toFixed(0)} | **${n.rssKbPerSocket.toFixed(1)}** | ${n.heapKbPerSocket.toFixed(1)} | ${n.externalKbPerSocket.toFixed(1)} | ${int(n.onlineSeen)} | ${(connectCpuMs[k]! / 1000).toFixed(1)} | ${ms(connectLoop[k]!.p99)} |`,
      ),
      `| **total** | **${int(totalSockets)}** | ${sum(perNode.map((n) => n.rssMb)).toFixed(0)} | **${rssPerSocket.toFixed(1)}** | ${(totalHeapKb / Math.max(1, totalSockets)).toFixed(1)} | | | ${(sum(connectCpuMs) / 1000).toFixed(1)} | |`,
      '',
      `- **Connect**: ${int(connected.connected)} sockets in ${((connected.endedAt - connected.startedAt) / 1000).toFixed(1)} s, **${int(connectPerSec)}/s**; CPU per connect: hubs ${(sum(connectCpuMs) / Math.max(1, connected.connected)).toFixed(2)} ms, ` +
        `generators ${(genConnectCpuMs / Math.max(1, connected.connected)).toFixed(2)} ms, Redis ${(redisConnectCpuMs / Math.max(1, connected.connected)).toFixed(3)} ms (until presence converged).`,
      `- **Presence convergence**: every node sees all ${int(held)} agents ONLINE **${(conv.ms / 1000).toFixed(1)} s** after the last connect (each node asked, \`GET /api/admin/actors\` → \`node.online_agents\`). ` +
        `Presence writes reaching the store: **${int(presenceWritesPerSec)} row updates/s** of \`users\` (${int(commitsPerSec)} commits/s) from the first connect to convergence.`,
      `- **Kernel memory** per connection (both ends on this machine; TCP buffers + socket slabs): ${kernelKbPerSocket.toFixed(1)} KB.`,
      `- **Bus**: ${busCount > 0 ? (busBytes / chatMessages).toFixed(0) : '—'} bytes published per targeted message (${int(busCount)} bus messages for ${int(chatMessages)} chats), ` +
        `Redis CPU ${((redisChatCpuMs * 1000) / Math.max(1, chatMessages)).toFixed(1)} µs per message; hubs' CPU per message ${(across.cpuMsPerMessage * 1000).toFixed(0)} µs over all nodes against ${(alone.cpuMsPerMessage * 1000).toFixed(0)} µs on one node.`,
      '',
      ...markdownSection(`Scale: targeted CHAT across ${s.nodes} nodes holding ${int(held)} agents`, across.result, [
        `${s.agents} senders spread over every node, humans on every node (a chat crosses nodes ${s.nodes - 1} times in ${s.nodes}). Against one node holding ${int(s.singleAgents)} agents with the same load in this run: ` +
          `**${bestAcross?.toFixed(0) ?? '—'} vs ${bestAlone?.toFixed(0) ?? '—'} msg/s** sustained (**${ratio?.toFixed(2) ?? '—'}×**). ` +
          `p99 at 1,000/s: ${ms(openRow(across.result.rows, 1_000)?.latency.p99 ?? NaN)} ms across nodes, ${ms(openRow(alone.result.rows, 1_000)?.latency.p99 ?? NaN)} ms on one node.`,
      ]),
      ...markdownSection(`Scale: one node holding ${int(s.singleAgents)} agents, the same targeted load`, alone.result),
      ...markdownSection(`Scale: broadcast to ${s.dashboards} dashboards spread over ${s.nodes} nodes`, fan, [
        `SYSTEM_LOG from 20 agents on every node, stored and delivered to every dashboard. Deliveries/s kept up: ${fanBest?.deliveredRate.toFixed(0) ?? '—'}.`,
      ]),
      `#### Scale: node n${victim + 1} killed (-9) holding ${int(heldByVictim)} agents`,
      '',
      `Clients reconnect as the client library does (full-jitter backoff from ${RECONNECT.initialMs} ms, at least ${RECONNECT.floorMs} ms, at most ${RECONNECT.maxMs} ms) to another node at random ` +
        `(what a balancer would do). ${int(s.chatterRate)} acknowledged SYSTEM_LOG/s from random agents throughout.`,
      '',
      '| all sockets open again | ONLINE on every node | dead node reaped (CLUSTER_NODE_TTL ' +
        s.nodeTtl +
        ') | reconnects / failed attempts / 503 | ACKed frames | **ACKed lost** | unconfirmed at the kill | survivors: ping p50 / p99 / max ms | survivors: loop lag p99 ms |',
      '|---:|---:|---:|---|---:|---:|---:|---:|---|',
      `| ${(reconnectMs / 1000).toFixed(1)} s | ${(onlineMs / 1000).toFixed(1)} s (lowest seen: ${minOnline.map(int).join(' / ')}) | ${(reapedMs / 1000).toFixed(1)} s | ${int(worst.reconnects)} / ${int(worst.failedAttempts)} / ${int(worst.refusedBusy)} | ` +
        `${int(acked.length)} | **${int(lostAcked)}** | ${int(sum(chatted.map((c) => c.unconfirmed)))} | ${ms(pingAll.p50)} / ${ms(pingAll.p99)} / ${ms(pingAll.max)} | ${loopP99(loopDuring)} |`,
      '',
      `Sockets per surviving node afterwards: ${after.map((a) => int(a.sockets)).join(' / ')}.`,
      '',
      ...pollNote('Watching the node loss', pollFailures),
      ...pollNote('Waiting for presence to converge', convergeFailures),
    ];
    return {
      summary,
      details: {
        settings: s,
        perNode,
        connectLoop,
        connectCpuMs,
        conv,
        single: alone,
        across,
        broadcast: fan,
        nodeLoss: {
          heldByVictim,
          reconnectMs,
          onlineMs,
          minOnline,
          reapedMs,
          status: worst,
          pingMs: pingAll,
          loopDuring,
          acked: acked.length,
          lostAcked,
          after,
          pollFailures,
        },
        convergeFailures,
      },
      markdown,
      problems,
    };
  },
});
