// Phases 1 and 3: targeted agent→human CHAT through a server (the hub or the raw relay), closed-loop
// for the maximum sustained rate and open-loop at fixed rates for latency. The agent sockets and the
// human sockets live in two generator processes; neither runs in the server's process.
import type { AgentsConnectParams, AgentsRunParams, AgentsRunResult, ConnectParams, ConnectResult, HumansSettleResult, RunMode } from '../gen/protocol.js';
import { pingSampler } from '../lib/net.js';
import { CpuMeter, ForeignCpuMeter, MachineCpuMeter, rssKb, ThreadCpuMeter, type ThreadCpu } from '../lib/procfs.js';
import type { Server } from '../lib/servers.js';
import { Generator } from '../lib/spawn.js';
import { percentiles, type Percentiles } from '../lib/stats.js';

export interface ChatRig {
  server: Server;
  agents: Generator;
  humans: Generator;
  agentCount: number;
}

export interface ChatSpec {
  label: string;
  /** Unique per run: it prefixes every local_id. */
  tag: string;
  mode: RunMode;
  durationMs: number;
  /** The first part of the run that does not count towards msg/s (ramp-up). */
  rampMs: number;
  drainMs: number;
  payloadBytes: number;
}

export interface ChatRow {
  server: Server['kind'];
  label: string;
  mode: RunMode;
  durationMs: number;
  sent: number;
  /** Frames sent per second over the whole run. */
  sendRate: number;
  /** CHAT frames received by the humans per second, inside the measured window. */
  deliveredRate: number;
  /** Delivered per second of the measured window. */
  deliveredPerSecond: number[];
  latency: Percentiles;
  acked: number;
  errors: number;
  missing: number;
  duplicates: number;
  unexpected: number;
  /** All threads of the server process, % of one core. */
  serverCpuPercent: number;
  serverThreads: ThreadCpu;
  serverRssMb: number;
  /** CPU of the generator processes over the same interval as the server's (% of one core). */
  agentsCpuPercent: number;
  humansCpuPercent: number;
  /** The whole machine, kernel included (200 = both cores of a 2-core machine busy). */
  machineCpuPercent: number;
  /** Other users' processes (not the bench's children): above a few % the row is noisy. */
  foreignCpuPercent: number;
  /** HTTP round trip to the server during the run: a proxy for its event-loop lag. */
  pingMs: Percentiles;
  maxScheduleLagMs: number;
  /** Hub only: rows in the messages table when the run started. */
  storedBefore?: number;
  problems: string[];
}

export async function startChatGenerators(): Promise<{ agents: Generator; humans: Generator }> {
  const [agents, humans] = await Promise.all([Generator.start('agents', 'bench/gen/chatAgents.ts'), Generator.start('humans', 'bench/gen/chatHumans.ts')]);
  return { agents, humans };
}

/** Connects the humans first (so targets are online), then the agents. */
export async function connectRig(server: Server, gens: { agents: Generator; humans: Generator }, humanUrls: string[], agentUrls: string[], targets: number[]): Promise<ChatRig> {
  await gens.humans.call<ConnectResult>('connect', { urls: humanUrls, concurrency: 20 } satisfies ConnectParams, 60_000);
  await gens.agents.call<ConnectResult>('connect', { urls: agentUrls, concurrency: 50, targets } satisfies AgentsConnectParams, 60_000);
  return { server, ...gens, agentCount: agentUrls.length };
}

export async function disconnectRig(rig: ChatRig): Promise<void> {
  await Promise.all([rig.agents.call('disconnect', {}, 20_000), rig.humans.call('disconnect', {}, 20_000)]);
}

export async function runChat(rig: ChatRig, spec: ChatSpec, log: (line: string) => void): Promise<ChatRow> {
  const { server } = rig;
  log(`${server.kind}: ${spec.label} for ${spec.durationMs / 1000}s`);
  await rig.humans.call('arm', { tag: spec.tag, agents: rig.agentCount }, 10_000);
  const cpu = new CpuMeter(server.pid);
  const threads = new ThreadCpuMeter(server.pid);
  const agentsCpu = new CpuMeter(rig.agents.pid);
  const humansCpu = new CpuMeter(rig.humans.pid);
  const machineCpu = new MachineCpuMeter();
  const foreignCpu = new ForeignCpuMeter();
  const pings = pingSampler(server.pingUrl);
  const run: AgentsRunParams = { tag: spec.tag, mode: spec.mode, durationMs: spec.durationMs, drainMs: spec.drainMs, payloadBytes: spec.payloadBytes };
  const sent = await rig.agents.call<AgentsRunResult>('run', run, spec.durationMs + spec.drainMs + 30_000);
  const serverCpuPercent = cpu.percent();
  const serverThreads = threads.read();
  const agentsCpuPercent = agentsCpu.percent();
  const humansCpuPercent = humansCpu.percent();
  const machineCpuPercent = machineCpu.percent();
  const foreignCpuPercent = foreignCpu.percent();
  const pingMs = percentiles(pings.stop());
  const serverRssMb = rssKb(server.pid) / 1024;
  const windowStart = sent.startedAt + spec.rampMs;
  const windowEnd = sent.startedAt + spec.durationMs;
  const got = await rig.humans.call<HumansSettleResult>(
    'settle',
    { expected: sent.sent, windowStart, windowEnd, timeoutMs: spec.drainMs },
    spec.drainMs + 30_000,
  );

  const problems: string[] = [];
  if (got.missing > 0) problems.push(`${got.missing} of ${sent.total} messages never reached their human`);
  if (got.duplicates > 0) problems.push(`${got.duplicates} duplicate deliveries`);
  if (got.unexpected > 0) problems.push(`${got.unexpected} deliveries with a local_id that was not sent`);
  if (sent.errors > 0) problems.push(`${sent.errors} ERROR frames to agents, e.g. ${sent.errorSamples.join(' | ')}`);
  if (sent.acked !== sent.total) problems.push(`${sent.total - sent.acked - sent.errors} frames never acknowledged`);
  if (sent.closedSockets + got.closedSockets > 0) problems.push(`${sent.closedSockets + got.closedSockets} sockets closed during the run`);
  if (problems.length > 0 && got.samples.length > 0) problems.push(`samples: ${got.samples.join('; ')}`);

  const row: ChatRow = {
    server: server.kind,
    label: spec.label,
    mode: spec.mode,
    durationMs: spec.durationMs,
    sent: sent.total,
    sendRate: (sent.total * 1000) / (sent.endedAt - sent.startedAt),
    deliveredRate: (got.inWindow * 1000) / (windowEnd - windowStart),
    deliveredPerSecond: got.perSecond,
    latency: got.latency,
    acked: sent.acked,
    errors: sent.errors,
    missing: got.missing,
    duplicates: got.duplicates,
    unexpected: got.unexpected,
    serverCpuPercent,
    serverThreads,
    serverRssMb,
    agentsCpuPercent,
    humansCpuPercent,
    machineCpuPercent,
    foreignCpuPercent,
    pingMs,
    maxScheduleLagMs: sent.maxScheduleLagMs,
    problems,
  };
  log(
    `${server.kind}: ${spec.label}: sent ${sent.total}, delivered ${Math.round(row.deliveredRate)}/s, p50 ${got.latency.p50.toFixed(2)} ms, ` +
      `p99 ${got.latency.p99.toFixed(2)} ms, server CPU ${Math.round(serverCpuPercent)}% (main thread ${Math.round(serverThreads.main)}%, ` +
      `others ${serverThreads.others.map((t) => Math.round(t.percent)).join('/') || '–'})` +
      (problems.length > 0 ? `\n!!! FAILED: ${problems.join('\n!!! ')}` : ''),
  );
  return row;
}
