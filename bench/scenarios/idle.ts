// Idle agents: many agent sockets connected and announced (one acknowledged SYSTEM_LOG each), then
// left alone. Memory per socket and connect rate, measured at each step of sockets. Agents are
// registered on one hub process, which is then restarted on the same store, so the "before" RSS is
// a clean process and not one whose heap grew while serving thousands of registrations.
import type { IdleConnectParams, IdleConnectResult, IdleStatus } from '../gen/protocol.js';
import { HubApi, registerAgents } from '../lib/api.js';
import { sleep } from '../lib/net.js';
import { pick } from '../lib/plan.js';
import { CpuMeter, ForeignCpuMeter, hardFileLimit, kernelSocketKb, rssKb } from '../lib/procfs.js';
import { foreign } from '../lib/report.js';
import { defineScenario, type ScenarioContext } from '../lib/scenario.js';
import { ADMIN, type Hub } from '../lib/servers.js';
import type { Generator } from '../lib/spawn.js';
import { int, ms } from '../lib/stats.js';

/** Share of the first step connected on its own, before the measured bulk (code compiled, caches filled). */
const PRIME_SHARE = 0.05;
/** Sockets per source address: a loopback address has about 28k ephemeral ports. */
const SOCKETS_PER_ADDRESS = 20_000;
/** Open files a process keeps for itself (the hub's database, logs, listening socket). */
const FD_HEADROOM = 500;

interface IdleSettings {
  /** Sockets held at each measured step (cumulative). */
  steps: number[];
  /** Steps beyond what a process may open here were lowered to this; undefined when none were. */
  cappedAt?: number;
  /** The per-process open-file limit (hard) this machine allows. */
  fileLimit: number;
  generators: number;
  /** Handshakes in flight per generator. */
  concurrency: number;
  /** Wait after the last ACK before reading RSS (pending frees, lazily touched pages). */
  settleMs: number;
}

interface Step {
  sockets: number;
  connected: number;
  acked: number;
  stillOpen: number;
  /** Sockets per second while this step's sockets connected (handshake to ACK). */
  connectPerSecond: number;
  rssMb: number;
  /** (RSS now − RSS before any socket) / sockets: the budget's figure, one-off costs included. */
  kbPerSocket: number;
  /** (RSS now − RSS at the previous step) / sockets added: what one more socket costs. */
  marginalKbPerSocket: number;
  serverCpuPercent: number;
  /** CPU milliseconds per socket connected in this step: the hub's, and the connecting generators' together. */
  hubCpuMsPerConnect: number;
  generatorCpuMsPerConnect: number;
  foreignCpuPercent: number;
  /**
   * Kernel memory per connection (both its ends on this machine): TCP buffers (sockstat) and the
   * slab objects of the two sockets (slabinfo), each (now − before any socket) / sockets.
   */
  kernelBufferKbPerSocket: number;
  kernelSlabKbPerSocket: number;
  /** (V8 heap used now − before any socket) / sockets, and the same for memory outside the heap (external). */
  heapKbPerSocket: number;
  externalKbPerSocket: number;
  /** Loop lag while this step connected. */
  loopP99Ms: number;
  loopMaxMs: number;
}

function settingsOf(requested: number[], settleMs: number): IdleSettings {
  const fileLimit = hardFileLimit();
  const most = fileLimit - FD_HEADROOM;
  const steps = [...new Set(requested.map((n) => Math.min(n, most)))].sort((a, b) => a - b);
  const largest = steps.at(-1)!;
  return {
    steps,
    cappedAt: requested.some((n) => n > most) ? most : undefined,
    fileLimit,
    // Each generator holds at most 15k sockets (well inside its own open-file limit and one address's ports).
    generators: Math.max(3, Math.ceil(largest / 15_000)),
    concurrency: 64,
    settleMs,
  };
}

/** Connects `tokens`, spread over the generators; answers once every announce was acknowledged. */
async function connectBurst(hub: Hub, gens: Generator[], tokens: string[], s: IdleSettings) {
  const results = await Promise.all(
    gens.map((gen, k) => {
      const mine = tokens.filter((_, i) => i % gens.length === k);
      // Each generator its own source addresses, so no address runs short of ephemeral ports.
      const addresses = Array.from({ length: Math.max(1, Math.ceil(mine.length / SOCKETS_PER_ADDRESS)) }, (_, a) => `127.0.${1 + a}.${10 + k}`);
      return gen.call<IdleConnectResult>(
        'connect',
        {
          urls: mine.map((t) => hub.socketUrl(t)),
          concurrency: s.concurrency,
          localAddresses: addresses,
          announce: true,
          ackTimeoutMs: 60_000,
        } satisfies IdleConnectParams,
        300_000,
      );
    }),
  );
  return {
    connected: results.reduce((n, r) => n + r.connected, 0),
    acked: results.reduce((n, r) => n + r.acked, 0),
    errors: results.flatMap((r) => r.errors),
    ms: Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt)),
  };
}

async function register(ctx: ScenarioContext, hub: Hub, count: number): Promise<string[]> {
  const api = new HubApi(hub.baseUrl);
  const { token } = await api.login(ADMIN.username, ADMIN.password);
  const t0 = performance.now();
  const agents = await registerAgents(api, token, 'idle', count, (done) => ctx.log(`idle: registered ${done}/${count} agents`));
  ctx.log(`idle: ${count} agents registered at ${int((count * 1000) / (performance.now() - t0))}/s`);
  return agents.map((a) => a.api_token);
}

export default defineScenario({
  key: 'idle',
  title: 'Idle agents',
  order: 60,
  settings: (plan) => settingsOf(plan.idleSockets ?? pick(plan, [1_000], [10_000, 19_000]), pick(plan, 1_500, 3_000)),
  async run(ctx, s) {
    const store = await ctx.newStore('idle');
    const largest = s.steps.at(-1)!;
    ctx.log(`idle: registering ${largest} agents${s.cappedAt ? ` (a process may open ${s.fileLimit} files here, so at most ${s.cappedAt} sockets)` : ''}`);
    const registrar = await ctx.startHub('idle-register', store);
    const tokens = await register(ctx, registrar, largest);
    await ctx.stopHub(registrar);

    const hub = await ctx.startHub('idle', store);
    const gens = await Promise.all(Array.from({ length: s.generators }, (_, k) => ctx.generator(`idle${k}`, 'bench/gen/idle.ts')));
    await sleep(s.settleMs);
    const rssBefore = rssKb(hub.pid);
    const memoryBefore = await hub.memory();
    const kernelBefore = kernelSocketKb();
    const primeCount = Math.max(1, Math.round(s.steps[0]! * PRIME_SHARE));
    ctx.log(`idle: hub RSS before ${(rssBefore / 1024).toFixed(1)} MB; priming with ${primeCount} sockets`);
    const prime = await connectBurst(hub, gens, tokens.slice(0, primeCount), s);
    await sleep(s.settleMs);

    const problems: string[] = [];
    if (prime.connected < primeCount) problems.push(`${primeCount - prime.connected} sockets failed to connect, e.g. ${prime.errors.slice(0, 3).join('; ')}`);
    const steps: Step[] = [];
    let held = primeCount;
    let connected = prime.connected;
    let acked = prime.acked;
    let rssPrevious = rssKb(hub.pid);
    const from = Date.now();
    for (const target of s.steps) {
      const batch = tokens.slice(held, target);
      ctx.log(`idle: connecting ${batch.length} more (to ${target}) from ${gens.length} processes`);
      await hub.loop();
      const cpu = new CpuMeter(hub.pid);
      const genCpu = gens.map((g) => new CpuMeter(g.pid));
      const foreignCpu = new ForeignCpuMeter();
      const burst = await connectBurst(hub, gens, batch, s);
      const serverCpuPercent = cpu.percent();
      const hubCpuMs = cpu.used();
      const generatorCpuMs = genCpu.reduce((sum, m) => sum + m.used(), 0);
      const foreignCpuPercent = foreignCpu.percent();
      const loop = await hub.loop();
      held = target;
      connected += burst.connected;
      acked += burst.acked;
      if (burst.connected < batch.length)
        problems.push(`${batch.length - burst.connected} sockets failed to connect, e.g. ${burst.errors.slice(0, 3).join('; ')}`);
      await sleep(s.settleMs);
      const rss = rssKb(hub.pid);
      const memory = await hub.memory();
      const kernel = kernelSocketKb();
      const status = await Promise.all(gens.map((g) => g.call<IdleStatus>('status', {}, 10_000)));
      const stillOpen = status.reduce((n, st) => n + st.open, 0);
      const duplicateAcks = status.reduce((n, st) => n + st.duplicateAcks, 0);
      if (duplicateAcks > 0) problems.push(`${duplicateAcks} announces were acknowledged more than once at ${target} sockets`);
      const step: Step = {
        sockets: target,
        connected,
        acked,
        stillOpen,
        connectPerSecond: burst.ms > 0 ? (burst.connected * 1000) / burst.ms : NaN,
        rssMb: rss / 1024,
        kbPerSocket: (rss - rssBefore) / connected,
        marginalKbPerSocket: burst.connected > 0 ? (rss - rssPrevious) / burst.connected : NaN,
        kernelBufferKbPerSocket: (kernel.buffersKb - kernelBefore.buffersKb) / connected,
        kernelSlabKbPerSocket: (kernel.slabKb - kernelBefore.slabKb) / connected,
        heapKbPerSocket: (memory.heapUsed - memoryBefore.heapUsed) / 1024 / connected,
        externalKbPerSocket: (memory.external - memoryBefore.external) / 1024 / connected,
        serverCpuPercent,
        hubCpuMsPerConnect: hubCpuMs / Math.max(1, burst.connected),
        generatorCpuMsPerConnect: generatorCpuMs / Math.max(1, burst.connected),
        foreignCpuPercent,
        loopP99Ms: loop.p99,
        loopMaxMs: loop.max,
      };
      rssPrevious = rss;
      steps.push(step);
      ctx.log(
        `idle: ${connected} connected, ${acked} acknowledged, RSS ${step.rssMb.toFixed(1)} MB, ${step.kbPerSocket.toFixed(1)} KB/socket (marginal ${step.marginalKbPerSocket.toFixed(1)}, JS heap ${step.heapKbPerSocket.toFixed(1)}); ` +
          `kernel per connection: buffers ${step.kernelBufferKbPerSocket.toFixed(2)} KB, socket slabs ${step.kernelSlabKbPerSocket.toFixed(1)} KB (both ends)`,
      );
      if (acked < connected) problems.push(`${connected - acked} announces were not acknowledged at ${target} sockets`);
      if (stillOpen < connected) problems.push(`${connected - stillOpen} sockets closed while idle at ${target} sockets`);
    }
    await Promise.all(gens.map((g) => g.call('disconnect', {}, 60_000)));
    await ctx.stopHub(hub, { from, to: Date.now() }, 'the idle sockets connecting');

    const first = steps[0]!;
    const last = steps.at(-1)!;
    return {
      summary: {
        sockets: first.sockets,
        rssPerSocketKB: first.kbPerSocket,
        heapPerSocketKB: first.heapKbPerSocket,
        connectPerSec: first.connectPerSecond,
        maxSockets: last.sockets,
        rssPerSocketKBAtMax: last.kbPerSocket,
        kernelKBPerSocketAtMax: (last.kernelBufferKbPerSocket + last.kernelSlabKbPerSocket) / 2,
      },
      details: { rssBeforeMb: rssBefore / 1024, steps },
      markdown: [
        `### Idle agent sockets (each announced once with an acknowledged SYSTEM_LOG)`,
        '',
        `KB / socket = (hub RSS with the sockets − hub RSS before any) / sockets; marginal = what the sockets added since the step before cost each; JS heap / external = V8's heap used and its external memory (uWS and Buffers), each (now − before any socket) / sockets, read inside the hub by the probe (no GC forced, so the heap figure includes garbage not yet collected). ` +
          `Hub RSS before any socket: ${(rssBefore / 1024).toFixed(1)} MB.` +
          ' Kernel KB / connection: what the kernel holds outside any RSS, machine-wide (TCP buffer pages from `/proc/net/sockstat`, and the socket, inode, file, ' +
          "dentry and epoll objects from `/proc/slabinfo`); both ends of every connection are on this machine, so about half of it is the hub's." +
          (s.cappedAt ? ` A process may open ${int(s.fileLimit)} files on this machine, so the largest step was lowered to ${int(s.cappedAt)} sockets.` : '') +
          ' *CPU ms per connect*: what each socket of the step cost the hub, and the connecting generators (`ws` clients, which on this machine share its cores), in CPU time from handshake to acknowledged announce.',
        '',
        '| sockets | still open | connect/s | hub RSS MB | **KB / socket** | marginal KB / socket | JS heap / external KB / socket | kernel KB / connection: buffers + slabs | hub CPU % while connecting | CPU ms per connect: hub / generators | loop lag p99 / max ms | foreign CPU % |',
        '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...steps.map(
          (st) =>
            `| ${int(st.sockets)} | ${int(st.stillOpen)} | ${int(st.connectPerSecond)} | ${st.rssMb.toFixed(1)} | **${st.kbPerSocket.toFixed(1)}** | ${st.marginalKbPerSocket.toFixed(1)} | ` +
            `${st.heapKbPerSocket.toFixed(1)} / ${st.externalKbPerSocket.toFixed(1)} | ` +
            `${st.kernelBufferKbPerSocket.toFixed(2)} + ${st.kernelSlabKbPerSocket.toFixed(1)} | ` +
            `${int(st.serverCpuPercent)} | ${st.hubCpuMsPerConnect.toFixed(2)} / ${st.generatorCpuMsPerConnect.toFixed(2)} | ${ms(st.loopP99Ms)} / ${ms(st.loopMaxMs)} | ${foreign(st.foreignCpuPercent)} |`,
        ),
      ],
      problems,
    };
  },
});
