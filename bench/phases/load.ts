// The messaging load shared by the targeted, reference and fan-out scenarios: sender sockets in one
// generator process, receiver sockets in another, a server in a third. Closed loops find the most a
// server sustains (in flight is bounded by the window, so no backlog can grow); open loops at fixed
// rates give latency, and show a backlog building when the server cannot keep up.
import type {
  ConnectParams,
  ConnectResult,
  ReceiversArmParams,
  ReceiversSettleResult,
  RunMode,
  SendersConnectParams,
  SendersRunParams,
  SendersRunResult,
  SendKind,
} from '../gen/protocol.js';
import type { ScenarioContext } from '../lib/scenario.js';
import type { Server } from '../lib/servers.js';
import type { Generator } from '../lib/spawn.js';
import { int, ms, type Percentiles } from '../lib/stats.js';
import { meterUsage, type Usage } from '../lib/usage.js';

/** Frames per run at most: bounds the receivers' ledgers and samples whatever the server's speed. */
const MAX_MESSAGES = 3_000_000;

export interface Rig {
  server: Server;
  senders: Generator;
  receivers: Generator;
  senderCount: number;
  /** CHAT (targeted: one receiving socket each) or SYSTEM_LOG (broadcast: every receiving socket). */
  type: 'CHAT' | 'SYSTEM_LOG';
  receiverSockets: number;
  /** Receiving sockets whose receipts give latency samples (a broadcast needs only a few). */
  latencySockets?: number;
}

export interface RigSpec {
  receiverUrls: string[];
  senderUrls: string[];
  send: SendKind;
  latencySockets?: number;
}

/** Starts both generators and connects the receivers first (so targets are online), then the senders. */
export async function connectRig(ctx: ScenarioContext, server: Server, spec: RigSpec): Promise<Rig> {
  const [senders, receivers] = await Promise.all([ctx.generator('senders', 'bench/gen/senders.ts'), ctx.generator('receivers', 'bench/gen/receivers.ts')]);
  const transport = server.transport;
  await receivers.call<ConnectResult>('connect', { urls: spec.receiverUrls, concurrency: 20, transport } satisfies ConnectParams, 120_000);
  await senders.call<ConnectResult>('connect', { urls: spec.senderUrls, concurrency: 50, transport, send: spec.send } satisfies SendersConnectParams, 120_000);
  return {
    server,
    senders,
    receivers,
    senderCount: spec.senderUrls.length,
    type: spec.send.frame === 'chat' ? 'CHAT' : 'SYSTEM_LOG',
    receiverSockets: spec.receiverUrls.length,
    latencySockets: spec.latencySockets,
  };
}

export async function disconnectRig(rig: Rig): Promise<void> {
  await Promise.all([rig.senders.call('disconnect', {}, 30_000), rig.receivers.call('disconnect', {}, 30_000)]);
}

export interface RunSpec {
  label: string;
  /** Unique per run: it prefixes every local_id. */
  tag: string;
  mode: RunMode;
  durationMs: number;
  /**
   * A broadcast open loop that may outrun the hub (`stopWhenBehind`): dashboards it cuts off as
   * slow consumers are reported as such (`cutOff`), not as lost deliveries, as long as every socket
   * that stayed open got every frame.
   */
  overloadProbe?: boolean;
  /** The first part of the run that does not count towards the rate (ramp-up). */
  rampMs: number;
  drainMs: number;
  payloadBytes: number;
}

export interface RunRow {
  server: Server['kind'];
  label: string;
  mode: RunMode;
  durationMs: number;
  /** Messages sent. */
  sent: number;
  /** Messages sent per second over the whole run. */
  sendRate: number;
  /** Frames received per second inside the measured window (messages × receiving sockets for a broadcast). */
  deliveredRate: number;
  /** Messages per second inside the window (the delivered rate divided by the copies of each). */
  messageRate: number;
  /** Delivered per second of the measured window. */
  deliveredPerSecond: number[];
  latency: Percentiles;
  /** Median latency of the messages sent in each second. */
  latencyP50PerSecond: number[];
  /**
   * The median latency kept rising through the run: the server fell behind an open loop's rate, or
   * (a broadcast is ACKed once stored, before it is delivered) deliveries fell behind the ACKs.
   */
  backlogGrowing: boolean;
  acked: number;
  errors: number;
  missing: number;
  /** Overload probe: dashboards the hub cut off as slow consumers (4011), and what they did not get. */
  cutOff: number;
  missingOnCutOff: number;
  duplicates: number;
  unexpected: number;
  /** Frames of other types the receivers got (PRESENCE...). */
  otherFrames: number;
  usage: Usage;
  maxScheduleLagMs: number;
  /** Hub only: messages stored before this run started. */
  storedBefore?: number;
  problems: string[];
}

/**
 * A backlog builds when the latency of what was sent late in the run is well above that of what
 * was sent early (after the ramp). Small absolute rises are noise on a shared machine.
 */
function growing(perSecond: number[], rampMs: number): boolean {
  const valid = perSecond.slice(Math.ceil(rampMs / 1000)).filter(Number.isFinite);
  if (valid.length < 4) return false;
  const third = Math.max(1, Math.floor(valid.length / 3));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const early = mean(valid.slice(0, third));
  const late = mean(valid.slice(-third));
  return late > 2 * early + 50;
}

export async function runLoad(rig: Rig, spec: RunSpec, log: (line: string) => void): Promise<RunRow> {
  const { server } = rig;
  log(`${server.kind}: ${spec.label} for ${spec.durationMs / 1000}s`);
  const everySocket = rig.type === 'SYSTEM_LOG';
  await rig.receivers.call(
    'arm',
    { tag: spec.tag, type: rig.type, senders: rig.senderCount, everySocket, latencySockets: rig.latencySockets } satisfies ReceiversArmParams,
    10_000,
  );
  const meter = await meterUsage(server, [rig.senders, rig.receivers]);
  const run: SendersRunParams = {
    tag: spec.tag,
    mode: spec.mode,
    durationMs: spec.durationMs,
    maxMessages: MAX_MESSAGES,
    drainMs: spec.drainMs,
    payloadBytes: spec.payloadBytes,
  };
  const sent = await rig.senders.call<SendersRunResult>('run', run, spec.durationMs + spec.drainMs + 30_000);
  const usage = await meter.stop();
  const windowStart = sent.startedAt + spec.rampMs;
  const windowEnd = sent.startedAt + spec.durationMs;
  const got = await rig.receivers.call<ReceiversSettleResult>(
    'settle',
    { expected: sent.sent, startedAt: sent.startedAt, windowStart, windowEnd, timeoutMs: spec.drainMs },
    spec.drainMs + 60_000,
  );

  const problems: string[] = [];
  const copies = everySocket ? rig.receiverSockets : 1;
  // A dashboard the hub cut off as a slow consumer (4011, past WS_MAX_BUFFERED_BYTES) is the hub's
  // documented answer to overload: its client resumes what it missed with `since`. Only an overload
  // probe (an open loop past what the hub keeps up with) may do that; anywhere else it is a failure.
  const overloadProbe = spec.mode.kind === 'open' && (spec.overloadProbe ?? false);
  const cutOff = overloadProbe ? got.cutOffSockets : 0;
  const missing = got.missing + (overloadProbe ? 0 : got.missingOnCutOff);
  if (missing > 0) problems.push(`${missing} of ${sent.total * copies} deliveries never arrived`);
  if (got.duplicates > 0) problems.push(`${got.duplicates} duplicate deliveries`);
  if (got.unexpected > 0) problems.push(`${got.unexpected} deliveries with a local_id that was not sent`);
  if (sent.errors > 0) problems.push(`${sent.errors} ERROR frames to senders, e.g. ${sent.errorSamples.join(' | ')}`);
  if (sent.acked + sent.errors !== sent.total) problems.push(`${sent.total - sent.acked - sent.errors} frames never acknowledged`);
  if (sent.closedSockets + got.closedSockets - cutOff > 0) problems.push(`${sent.closedSockets + got.closedSockets - cutOff} sockets closed during the run`);
  if (problems.length > 0 && got.samples.length > 0) problems.push(`samples: ${got.samples.join('; ')}`);

  const deliveredRate = (got.inWindow * 1000) / (windowEnd - windowStart);
  const row: RunRow = {
    server: server.kind,
    label: spec.label,
    mode: spec.mode,
    durationMs: spec.durationMs,
    sent: sent.total,
    sendRate: (sent.total * 1000) / (sent.endedAt - sent.startedAt),
    deliveredRate,
    messageRate: deliveredRate / copies,
    deliveredPerSecond: got.perSecond,
    latency: got.latency,
    latencyP50PerSecond: got.latencyP50PerSecond,
    backlogGrowing: growing(got.latencyP50PerSecond, spec.rampMs),
    acked: sent.acked,
    errors: sent.errors,
    missing,
    cutOff,
    missingOnCutOff: overloadProbe ? got.missingOnCutOff : 0,
    duplicates: got.duplicates,
    unexpected: got.unexpected,
    otherFrames: got.otherFrames,
    usage,
    maxScheduleLagMs: sent.maxScheduleLagMs,
    problems,
  };
  log(runLine(row));
  return row;
}

/**
 * One run's log line. A run where no delivery arrived has no latency (NaN, or null from an older
 * channel): shown as "–" beside the problems that say why, never a crash that hides them.
 */
export function runLine(row: RunRow): string {
  const { usage, problems } = row;
  return (
    `${row.server}: ${row.label}: sent ${row.sent}, delivered ${int(row.deliveredRate)}/s, p50 ${ms(row.latency.p50)} ms, ` +
    `p99 ${ms(row.latency.p99)} ms, server CPU ${int(usage.serverCpuPercent)}% (main thread ${int(usage.serverThreads.main)}%), ` +
    `loop lag p99 ${ms(usage.loop.p99)} ms${row.backlogGrowing ? ', backlog growing' : ''}` +
    (row.cutOff > 0 ? `, ${row.cutOff} dashboards cut off as slow consumers (4011; ${row.missingOnCutOff} deliveries left for their resume)` : '') +
    (problems.length > 0 ? `\n!!! FAILED: ${problems.join('\n!!! ')}` : '')
  );
}

/** How each messaging scenario loads its server. */
export interface LoadSettings {
  payloadBytes: number;
  /** Unreported run first: JIT warm-up, default threads created, SQLite pages cached. */
  warmupMs: number;
  /** Warm up with an open loop at this rate instead of a closed loop at window 16. */
  warmupRate?: number;
  openRates: number[];
  openMs: number;
  /**
   * Open loops in rising order, stopping after the first the server did not keep up with: for a
   * broadcast, which is ACKed before it is delivered, so overload piles up in the receivers' buffers.
   */
  stopWhenBehind?: boolean;
  windows: number[];
  closedMs: number;
  /** Start of each run left out of the rate. */
  rampMs: number;
  /** Upper bound for stragglers after the last send (an overloaded server catches up within it, or fails). */
  drainMs: number;
}

/**
 * The warm-up, then the open-loop runs, then the closed loops. The open loops go first because
 * they add fewer rows: the hub slows down as its messages table grows, and latency figures should
 * not be taken on a table the maximum-rate runs have just bloated.
 */
export function series(kind: string, s: LoadSettings): { warmup: RunSpec; runs: RunSpec[] } {
  const base = { drainMs: s.drainMs, payloadBytes: s.payloadBytes };
  return {
    // A modest load: the warm-up is there to compile code and create rows, not to flood the server.
    warmup: {
      ...base,
      label: 'warm-up',
      tag: `${kind}w`,
      mode: s.warmupRate === undefined ? { kind: 'closed', window: Math.min(16, ...s.windows) } : { kind: 'open', rate: s.warmupRate },
      durationMs: s.warmupMs,
      rampMs: 0,
    },
    runs: [
      ...s.openRates.map((rate) => ({
        ...base,
        label: `open loop ${rate}/s`,
        tag: `${kind}o${rate}`,
        mode: { kind: 'open' as const, rate },
        overloadProbe: s.stopWhenBehind ?? false,
        durationMs: s.openMs,
        rampMs: s.rampMs,
      })),
      ...s.windows.map((window) => ({
        ...base,
        label: `closed loop, window ${window}`,
        tag: `${kind}c${window}`,
        mode: { kind: 'closed' as const, window },
        durationMs: s.closedMs,
        rampMs: s.rampMs,
      })),
    ],
  };
}

export interface SeriesResult {
  warmup: RunRow;
  rows: RunRow[];
  /** When the reported runs ran (epoch ms), to cut a profile to them. */
  window: { from: number; to: number };
}

/** Runs the warm-up and the reported runs on one rig; the hub's rows say how much was stored before each. */
export async function runSeries(rig: Rig, kind: string, s: LoadSettings, log: (line: string) => void): Promise<SeriesResult> {
  const { warmup, runs } = series(kind, s);
  const first = await runLoad(rig, warmup, log);
  let stored = first.sent;
  const from = Date.now();
  const rows: RunRow[] = [];
  for (const spec of runs) {
    const row = await runLoad(rig, spec, log);
    if (rig.server.kind === 'hub') row.storedBefore = stored;
    stored += row.sent;
    rows.push(row);
    if (s.stopWhenBehind && !keptUp(row)) {
      log(`${rig.server.kind}: ${spec.label} did not keep up; no higher rate`);
      break;
    }
  }
  return { warmup: first, rows, window: { from, to: Date.now() } };
}

/** The best closed-loop run: the most the server sustained. */
export const maxSustained = (rows: RunRow[]) => rows.filter((r) => r.mode.kind === 'closed').sort((a, b) => b.deliveredRate - a.deliveredRate)[0];

/** An open loop the server kept up with: delivered at the offered rate, no backlog building, no problem. */
const keptUp = (r: RunRow) => r.mode.kind === 'open' && !r.backlogGrowing && r.messageRate >= 0.97 * r.mode.rate && r.problems.length === 0 && r.cutOff === 0;

/** The open-loop run with the highest rate the server kept up with. */
export function highestKeptUp(rows: RunRow[]): RunRow | undefined {
  return rows.filter(keptUp).sort((a, b) => b.deliveredRate - a.deliveredRate)[0];
}

export const openRow = (rows: RunRow[], rate: number) => rows.find((r) => r.mode.kind === 'open' && r.mode.rate === rate);

/** Every problem of a series, each prefixed with its run. */
export const seriesProblems = (result: SeriesResult) => [result.warmup, ...result.rows].flatMap((r) => r.problems.map((p) => `${r.label}: ${p}`));
