// WebSocket benchmark of the hub: `npm run bench:ws [-- --quick] [-- --profile]`. See bench/README.md.
// The orchestrator only starts processes and reads /proc: the hub, the raw relay and the load
// generators each run in their own child process, so no figure includes the generator's work.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { HubApi, createCast } from './lib/api.js';
import { now } from './lib/clock.js';
import { parsePlan, QUIET_CPU, type Plan } from './lib/plan.js';
import { ForeignCpuMeter, machine } from './lib/procfs.js';
import { summariseWritten } from './lib/profile.js';
import { cpuUsPerMessage, maxSustained, renderMarkdown, targetsOf, type Results } from './lib/report.js';
import { sleep } from './lib/net.js';
import { ADMIN, newJwtSecret, startHub, startRawRelay, type Server } from './lib/servers.js';
import type { Generator } from './lib/spawn.js';
import { connectRig, disconnectRig, runChat, startChatGenerators, type ChatRig, type ChatSpec } from './phases/chat.js';
import { runIdle } from './phases/idle.js';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);

/** Everything started, so an error or Ctrl-C still stops it all. */
const live = { servers: new Set<Server>(), generators: new Set<Generator>() };
async function stopAll(): Promise<void> {
  await Promise.all([...live.generators].map((g) => g.stop()));
  await Promise.all([...live.servers].map((s) => s.stop()));
  live.generators.clear();
  live.servers.clear();
}

/**
 * The reported runs against one server: each open-loop rate, then each closed-loop window. The open
 * loops go first because they add fewer rows: the hub slows down as its messages table grows, and
 * the latency figures should not be taken on a table the maximum-rate runs have just bloated.
 */
function chatSpecs(plan: Plan, kind: Server['kind'], rates: number[]): { warmup: ChatSpec; runs: ChatSpec[] } {
  const base = { drainMs: plan.drainMs, payloadBytes: plan.payloadBytes, rampMs: 0 };
  const closed = (window: number) => ({ kind: 'closed' as const, window });
  return {
    warmup: { ...base, label: 'warm-up', tag: `${kind}w`, mode: closed(plan.windows[0]!), durationMs: plan.warmupMs },
    runs: [
      ...rates.map((rate) => ({ ...base, label: `open loop ${rate}/s`, tag: `${kind}o${rate}`, mode: { kind: 'open' as const, rate }, durationMs: plan.openMs })),
      ...plan.windows.map((w) => ({
        ...base,
        label: `closed loop, window ${w}`,
        tag: `${kind}c${w}`,
        mode: closed(w),
        durationMs: plan.closedMs,
        rampMs: plan.rampMs,
      })),
    ],
  };
}

/** Runs the warm-up and the reported runs; answers when the reported ones ran (epoch ms). */
async function runChatPhase(rig: ChatRig, plan: Plan, rates: number[], results: Results): Promise<{ from: number; to: number }> {
  const { warmup, runs } = chatSpecs(plan, rig.server.kind, rates);
  const first = await runChat(rig, warmup, log);
  results.warmups.push(first);
  // The hub's inserts slow down as the messages table grows, so each row says how big it was.
  let stored = first.sent;
  const from = now();
  for (const spec of runs) {
    const row = await runChat(rig, spec, log);
    if (rig.server.kind !== 'raw') row.storedBefore = stored;
    stored += row.sent;
    results.chat.push(row);
  }
  return { from, to: now() };
}

async function hubPhase(plan: Plan, results: Results, gens: { agents: Generator; humans: Generator }, workDir: string, metrics = true): Promise<void> {
  const name = metrics ? 'hub' : 'hub-no-metrics';
  const profileDir = plan.profile && metrics ? join(workDir, 'profile') : undefined;
  log(`${name}: starting${profileDir ? ' under --cpu-prof' : ''}`);
  const hub = await startHub({ dir: join(workDir, `chat-${name}`), jwtSecret: newJwtSecret(), profileDir, metrics });
  live.servers.add(hub);
  const api = new HubApi(hub.baseUrl);
  const { token } = await api.login(ADMIN.username, ADMIN.password);
  const cast = await createCast(api, token, 'bench', plan.humans, plan.agents);
  log(`${name}: ${cast.humans.length} members and ${cast.agents.length} agents ready`);
  const rig = await connectRig(
    hub,
    gens,
    cast.humans.map((h) => hub.wsUrl(h.token)),
    cast.agents.map((a) => hub.wsUrl(a.api_token)),
    cast.humans.map((h) => h.id),
  );
  const measured = await runChatPhase(rig, plan, plan.openRates, results);
  await disconnectRig(rig);
  // SIGTERM: the hub shuts down cleanly, which is also when --cpu-prof writes its profile.
  await hub.stop();
  live.servers.delete(hub);
  if (profileDir) {
    const window = { ...measured, exitedAt: now() };
    results.profiles.chat = summariseWritten(profileDir, join(RESULTS_DIR, 'hub-chat-latest'), ROOT, 'the reported chat runs', window);
  }
}

async function rawPhase(plan: Plan, results: Results, gens: { agents: Generator; humans: Generator }): Promise<void> {
  log('raw: starting the uWS relay');
  const raw = await startRawRelay();
  live.servers.add(raw);
  // User ids: humans 1..H, agents from 1001; the relay trusts them as given.
  const humanIds = Array.from({ length: plan.humans }, (_, i) => i + 1);
  const agentIds = Array.from({ length: plan.agents }, (_, i) => i + 1001);
  const rig = await connectRig(raw, gens, humanIds.map(raw.wsUrl), agentIds.map(raw.wsUrl), humanIds);
  await runChatPhase(rig, plan, [plan.rawOpenRate], results);
  await disconnectRig(rig);
  await raw.stop();
  live.servers.delete(raw);
}

/**
 * Others share this machine (test suites, builds): wait, within bounds, until it is quiet, and
 * answer how busy it was at the start so the report can say its figures are noisy.
 */
async function waitForQuiet(maxWaitMs: number): Promise<number> {
  const deadline = performance.now() + maxWaitMs;
  for (;;) {
    const meter = new ForeignCpuMeter();
    await sleep(2000);
    const busy = meter.percent();
    if (busy <= QUIET_CPU || performance.now() >= deadline) return busy;
    log(`the machine is busy (${Math.round(busy)} % of a core used by other processes); waiting for it to quieten`);
  }
}

async function main(): Promise<number> {
  const plan = parsePlan(process.argv.slice(2));
  const results: Results = {
    startedAt: new Date().toISOString(),
    plan: { ...plan, phases: [...plan.phases] },
    machine: machine(),
    backgroundCpuPercent: 0,
    warmups: [],
    chat: [],
    profiles: {},
    targets: [],
    failures: [],
  };
  const m = results.machine;
  log(`${plan.mode} run on ${m.cpuModel} (${m.cores} cores), Node ${m.node}, hub ${m.hubCommit}`);
  results.backgroundCpuPercent = await waitForQuiet(plan.quietWaitMs);
  const workDir = mkdtempSync(join(os.tmpdir(), 'hub-bench-'));
  let keepWorkDir = false;
  try {
    if (plan.phases.has('hub') || plan.phases.has('hub-no-metrics') || plan.phases.has('raw')) {
      const gens = await startChatGenerators();
      live.generators.add(gens.agents).add(gens.humans);
      if (plan.phases.has('hub')) await hubPhase(plan, results, gens, workDir);
      if (plan.phases.has('hub-no-metrics')) await hubPhase(plan, results, gens, workDir, false);
      if (plan.phases.has('raw')) await rawPhase(plan, results, gens);
      await Promise.all([gens.agents.stop(), gens.humans.stop()]);
      live.generators.clear();
    }
    if (plan.phases.has('idle')) {
      const profile = plan.profile ? { dir: join(workDir, 'idle-profile'), keepAs: join(RESULTS_DIR, 'hub-idle-latest'), root: ROOT } : undefined;
      const idle = await runIdle({ ...plan.idle, dir: join(workDir, 'idle'), jwtSecret: newJwtSecret(), profile }, log, (s) => live.servers.add(s));
      results.idle = idle.result;
      if (idle.profiles) results.profiles.idle = idle.profiles;
    }
  } catch (err) {
    keepWorkDir = true;
    results.failures.push(`the run stopped: ${err instanceof Error ? err.message : String(err)}`);
    log(`!!! ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  } finally {
    await stopAll();
  }

  const hubMax = maxSustained(results.chat, 'hub');
  const rawMax = maxSustained(results.chat, 'raw');
  if (hubMax && rawMax) results.hubToRawMaxRatio = hubMax.deliveredRate / rawMax.deliveredRate;
  const bareMax = maxSustained(results.chat, 'hub-no-metrics');
  if (hubMax && bareMax) {
    results.metricsOnToOffMaxRatio = hubMax.deliveredRate / bareMax.deliveredRate;
    results.cpuUsPerMessage = { hub: cpuUsPerMessage(hubMax), 'hub-no-metrics': cpuUsPerMessage(bareMax) };
  }
  results.targets = targetsOf(results.chat, results.idle);
  for (const row of [...results.warmups, ...results.chat]) for (const p of row.problems) results.failures.push(`${row.server} ${row.label}: ${p}`);
  for (const p of results.idle?.problems ?? []) results.failures.push(`idle: ${p}`);
  results.finishedAt = new Date().toISOString();

  mkdirSync(RESULTS_DIR, { recursive: true });
  const jsonPath = join(RESULTS_DIR, 'ws-latest.json');
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderMarkdown(results);
  writeFileSync(join(RESULTS_DIR, 'ws-latest.md'), `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  log(`wrote ${jsonPath}`);
  if (keepWorkDir) log(`kept ${workDir} (hub logs and databases) for inspection`);
  else rmSync(workDir, { recursive: true, force: true });
  if (results.failures.length > 0) {
    log(`!!! ${results.failures.length} failure(s): see FAILURES above`);
    return 1;
  }
  return 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping every child process`);
    void stopAll().finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`!!! ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    void stopAll().finally(() => process.exit(1));
  },
);
