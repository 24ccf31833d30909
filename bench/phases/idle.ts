// Phase 2: many idle agent sockets. Agents are registered on one hub process, which is then
// restarted on the same database, so the "before" RSS is a clean process and not one whose heap
// grew (and kept its free space) while serving thousands of registrations.
import type { IdleConnectParams, IdleConnectResult, IdleStatus } from '../gen/protocol.js';
import { HubApi, registerAgents } from '../lib/api.js';
import { pingSampler, sleep } from '../lib/net.js';
import { now } from '../lib/clock.js';
import { CpuMeter, ForeignCpuMeter, rssKb } from '../lib/procfs.js';
import { summariseWritten, type ProfileSummary } from '../lib/profile.js';
import { ADMIN, startHub, type Server } from '../lib/servers.js';
import { Generator } from '../lib/spawn.js';
import { percentiles, type Percentiles } from '../lib/stats.js';

/** Share of the sockets connected first, on their own, before the measured bulk. */
const PRIME_SHARE = 0.05;

export interface IdleSpec {
  sockets: number;
  generators: number;
  /** Handshakes in flight per generator. */
  concurrency: number;
  /** Wait after the last ACK before reading RSS (pending frees, lazily touched pages). */
  settleMs: number;
  dir: string;
  jwtSecret: string;
  /** Profile the measured hub (--cpu-prof); the summary covers the bulk connect burst. */
  profile?: { dir: string; keepAs: string; root: string };
}

export interface IdleResult {
  sockets: number;
  connected: number;
  acked: number;
  stillOpen: number;
  registerPerSecond: number;
  connectPerSecond: number;
  connectMs: number;
  rssBeforeMb: number;
  /** After the priming burst. */
  rssPrimedMb: number;
  rssAfterMb: number;
  /** (after − before) / sockets: the figure, one-off costs included. */
  kbPerSocket: number;
  /** (after − primed) / sockets of the bulk burst: what one more socket costs. */
  marginalKbPerSocket: number;
  serverCpuPercentDuringConnect: number;
  /** Other users' processes during the bulk connect. */
  foreignCpuPercent: number;
  pingMsDuringConnect: Percentiles;
  problems: string[];
}

async function register(spec: IdleSpec, log: (line: string) => void): Promise<{ tokens: string[]; perSecond: number }> {
  const hub = await startHub({ dir: spec.dir, jwtSecret: spec.jwtSecret });
  try {
    const api = new HubApi(hub.baseUrl);
    const { token } = await api.login(ADMIN.username, ADMIN.password);
    const t0 = performance.now();
    const agents = await registerAgents(api, token, 'idle', spec.sockets, (done) => log(`idle: registered ${done}/${spec.sockets} agents`));
    return { tokens: agents.map((a) => a.api_token), perSecond: (agents.length * 1000) / (performance.now() - t0) };
  } finally {
    await hub.stop();
  }
}

interface Measured {
  result: IdleResult;
  /** When the bulk connect ran (epoch ms), to cut the hub's profile to it. */
  connectWindow: { from: number; to: number };
}

interface Burst {
  connected: number;
  acked: number;
  errors: string[];
  ms: number;
}

/** Connects `tokens`, spread over the generators; answers once every announce was acknowledged. */
async function connectBurst(hub: Server, gens: Generator[], tokens: string[], spec: IdleSpec): Promise<Burst> {
  const results = await Promise.all(
    gens.map((gen, k) =>
      gen.call<IdleConnectResult>(
        'connect',
        {
          urls: tokens.filter((_, i) => i % gens.length === k).map((t) => hub.wsUrl(t)),
          concurrency: spec.concurrency,
          // One source address per generator: each gets its own ephemeral port range.
          localAddresses: [`127.0.0.${10 + k}`],
          announce: true,
          ackTimeoutMs: 60_000,
        } satisfies IdleConnectParams,
        180_000,
      ),
    ),
  );
  return {
    connected: results.reduce((n, r) => n + r.connected, 0),
    acked: results.reduce((n, r) => n + r.acked, 0),
    errors: results.flatMap((r) => r.errors),
    ms: Math.max(...results.map((r) => r.endedAt)) - Math.min(...results.map((r) => r.startedAt)),
  };
}

/**
 * RSS before any socket, after a small priming burst (which also pays the one-off costs: code
 * compiled and caches filled on first use), and after the rest, each once things have settled.
 */
async function measure(hub: Server, gens: Generator[], tokens: string[], spec: IdleSpec, log: (line: string) => void): Promise<Measured> {
  await sleep(2000);
  const rssBefore = rssKb(hub.pid);
  const primeCount = Math.max(1, Math.round(tokens.length * PRIME_SHARE));
  log(`idle: hub RSS before ${(rssBefore / 1024).toFixed(1)} MB; priming with ${primeCount} sockets`);
  const prime = await connectBurst(hub, gens, tokens.slice(0, primeCount), spec);
  await sleep(spec.settleMs);
  const rssPrimed = rssKb(hub.pid);

  log(`idle: hub RSS ${(rssPrimed / 1024).toFixed(1)} MB; connecting ${tokens.length - primeCount} more from ${spec.generators} processes`);
  const cpu = new CpuMeter(hub.pid);
  const foreignCpu = new ForeignCpuMeter();
  const pings = pingSampler(hub.pingUrl);
  const from = now();
  const bulk = await connectBurst(hub, gens, tokens.slice(primeCount), spec);
  const serverCpu = cpu.percent();
  const foreignCpuPercent = foreignCpu.percent();
  const connectWindow = { from, to: now() };
  const pingMs = percentiles(pings.stop());
  const connected = prime.connected + bulk.connected;
  const acked = prime.acked + bulk.acked;
  log(`idle: ${connected} connected (the bulk in ${(bulk.ms / 1000).toFixed(1)} s), ${acked} announces acknowledged; settling`);

  await sleep(spec.settleMs);
  const rssAfter = rssKb(hub.pid);
  const status = await Promise.all(gens.map((g) => g.call<IdleStatus>('status', {}, 10_000)));
  const stillOpen = status.reduce((n, s) => n + s.open, 0);

  const problems: string[] = [];
  const errors = [...prime.errors, ...bulk.errors];
  if (connected < spec.sockets) problems.push(`${spec.sockets - connected} sockets failed to connect, e.g. ${errors.slice(0, 3).join('; ')}`);
  if (acked < connected) problems.push(`${connected - acked} announces were not acknowledged`);
  if (stillOpen < connected) problems.push(`${connected - stillOpen} sockets closed while idle`);

  const result: IdleResult = {
    sockets: spec.sockets,
    connected,
    acked,
    stillOpen,
    registerPerSecond: 0,
    connectPerSecond: (bulk.connected * 1000) / bulk.ms,
    connectMs: prime.ms + bulk.ms,
    rssBeforeMb: rssBefore / 1024,
    rssPrimedMb: rssPrimed / 1024,
    rssAfterMb: rssAfter / 1024,
    kbPerSocket: connected > 0 ? (rssAfter - rssBefore) / connected : NaN,
    marginalKbPerSocket: bulk.connected > 0 ? (rssAfter - rssPrimed) / bulk.connected : NaN,
    serverCpuPercentDuringConnect: serverCpu,
    foreignCpuPercent,
    pingMsDuringConnect: pingMs,
    problems,
  };
  log(
    `idle: RSS ${result.rssBeforeMb.toFixed(1)} → ${result.rssPrimedMb.toFixed(1)} → ${result.rssAfterMb.toFixed(1)} MB, ` +
      `${result.kbPerSocket.toFixed(1)} KB/socket (marginal ${result.marginalKbPerSocket.toFixed(1)})` +
      (problems.length > 0 ? `\n!!! FAILED: ${problems.join('\n!!! ')}` : ''),
  );
  return { result, connectWindow };
}

export async function runIdle(spec: IdleSpec, log: (line: string) => void, track: (s: Server) => void): Promise<{ result: IdleResult; profiles?: ProfileSummary[] }> {
  log(`idle: registering ${spec.sockets} agents`);
  const { tokens, perSecond } = await register(spec, log);

  const hub = await startHub({ dir: spec.dir, jwtSecret: spec.jwtSecret, profileDir: spec.profile?.dir });
  track(hub);
  const gens: Generator[] = [];
  let measured: Measured;
  try {
    gens.push(...(await Promise.all(Array.from({ length: spec.generators }, (_, k) => Generator.start(`idle${k}`, 'bench/gen/idle.ts')))));
    measured = await measure(hub, gens, tokens, spec, log);
    await Promise.all(gens.map((g) => g.call('disconnect', {}, 30_000)));
  } finally {
    await Promise.all(gens.map((g) => g.stop()));
    await hub.stop();
  }
  const result = { ...measured.result, registerPerSecond: perSecond };
  const profiles = spec.profile
    ? summariseWritten(spec.profile.dir, spec.profile.keepAs, spec.profile.root, `connecting ${spec.sockets} sockets`, { ...measured.connectWindow, exitedAt: now() })
    : undefined;
  return { result, profiles };
}
