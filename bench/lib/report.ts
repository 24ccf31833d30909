// The printed markdown report and the JSON written beside it.
import type { ChatRow } from '../phases/chat.js';
import type { IdleResult } from '../phases/idle.js';
import { QUIET_CPU, type Plan } from './plan.js';
import type { Machine } from './procfs.js';
import type { ProfileSummary } from './profile.js';
import { formatProfile } from './profile.js';
import { int, ms } from './stats.js';

export interface Results {
  startedAt: string;
  finishedAt?: string;
  plan: Omit<Plan, 'phases'> & { phases: string[] };
  machine: Machine;
  /** Machine CPU (100 = one core) used by other processes just before the run: high means noisy figures. */
  backgroundCpuPercent: number;
  /** Unreported warm-up runs (checked for loss like the rest). */
  warmups: ChatRow[];
  chat: ChatRow[];
  idle?: IdleResult;
  hubToRawMaxRatio?: number;
  /** Max sustained msg/s of the hub with metrics over the same hub with METRICS_ENABLED=false. */
  metricsOnToOffMaxRatio?: number;
  /**
   * Server CPU (all threads) per delivered message in the best closed-loop run, µs of one core: what
   * metrics cost even when other load on the machine starves one of the two runs.
   */
  cpuUsPerMessage?: { hub: number; 'hub-no-metrics': number };
  targets: Array<{ figure: string; measured: number; target: string; met: boolean }>;
  /** With --profile: the hub's self-time summary over the reported chat runs and over the idle connect burst. */
  profiles: { chat?: ProfileSummary[]; idle?: ProfileSummary[] };
  failures: string[];
}

const TREND_SECONDS = 5;

/** Mean delivered/s per slice of the window: shows whether the rate holds or sags as the database grows. */
function trend(r: ChatRow): string {
  const slices: string[] = [];
  for (let i = 0; i < r.deliveredPerSecond.length; i += TREND_SECONDS) {
    const part = r.deliveredPerSecond.slice(i, i + TREND_SECONDS);
    slices.push(int(part.reduce((a, b) => a + b, 0) / part.length));
  }
  return slices.join(' → ');
}

/** Other users' processes' CPU, flagged when enough to have skewed the row. */
const foreign = (cpu: number) => `${int(cpu)}${cpu > QUIET_CPU ? ' ⚠ noisy' : ''}`;

const load = (r: ChatRow) =>
  (r.mode.kind === 'closed' ? `closed loop, window ${r.mode.window}/agent` : `open loop ${int(r.mode.rate)}/s`) +
  (r.storedBefore === undefined ? '' : ` (${Math.round(r.storedBefore / 1000)}k rows stored before)`);

function chatTable(rows: ChatRow[]): string[] {
  return [
    '| server | load | sent | sent/s | delivered/s | p50 ms | p99 ms | p99.9 ms | max ms | lost / dup | server CPU % (main thread) | agents / humans gen CPU % | foreign CPU % | ping p99 ms | server RSS MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.server} | ${load(r)} | ${int(r.sent)} | ${int(r.sendRate)} | **${int(r.deliveredRate)}** | ${ms(r.latency.p50)} | **${ms(r.latency.p99)}** | ${ms(r.latency.p999)} | ${ms(r.latency.max)} | ` +
        `${r.missing} / ${r.duplicates}${r.problems.length > 0 ? ' ⚠' : ''} | ${int(r.serverCpuPercent)} (${int(r.serverThreads.main)}) | ${int(r.agentsCpuPercent)} / ${int(r.humansCpuPercent)} | ${foreign(r.foreignCpuPercent)} | ${ms(r.pingMs.p99)} | ${int(r.serverRssMb)} |`,
    ),
  ];
}

function idleTable(i: IdleResult): string[] {
  return [
    '| sockets | connected | still open | connect/s | hub RSS before MB | after 5 % MB | after all MB | **KB / socket** | marginal KB / socket | hub CPU % while connecting | foreign CPU % | ping p99 ms while connecting |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${int(i.sockets)} | ${int(i.connected)} | ${int(i.stillOpen)} | ${int(i.connectPerSecond)} | ${i.rssBeforeMb.toFixed(1)} | ${i.rssPrimedMb.toFixed(1)} | ${i.rssAfterMb.toFixed(1)} | ` +
      `**${i.kbPerSocket.toFixed(1)}** | ${i.marginalKbPerSocket.toFixed(1)} | ${int(i.serverCpuPercentDuringConnect)} | ${foreign(i.foreignCpuPercent)} | ${ms(i.pingMsDuringConnect.p99)} |`,
  ];
}

export function renderMarkdown(r: Results): string {
  const m = r.machine;
  const p = r.plan;
  const out = [
    `## WebSocket bench (${p.mode}) — ${r.startedAt}`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${int(m.memoryMb)} MB, Node ${m.node}, Linux ${m.kernel}; hub at ${m.hubCommit}. ` +
      `Background load before the run: ${int(r.backgroundCpuPercent)} % of a core${r.backgroundCpuPercent > QUIET_CPU ? ' (**busy machine: figures are noisy**)' : ''}.`,
  ];
  if (r.chat.length > 0) {
    out.push(
      '',
      `### Targeted agent→human CHAT, stored on SQLite (${p.agents} agents → ${p.humans} humans, ${p.payloadBytes}-byte text)`,
      '',
      `Latency: generator send call → CHAT received at the human socket. delivered/s counts receipts after the first ${p.rampMs / 1000} s of a closed-loop run.`,
      '',
      ...chatTable(r.chat),
    );
    for (const row of r.chat) {
      if (row.mode.kind === 'closed') out.push('', `${row.server} closed loop, window ${row.mode.window}: delivered/s in successive ${TREND_SECONDS}-second slices: ${trend(row)}`);
    }
    if (r.hubToRawMaxRatio !== undefined) out.push('', `Hub / raw uWS relay, max sustained msg/s (best closed-loop run of each): **${r.hubToRawMaxRatio.toFixed(2)}**`);
    if (r.metricsOnToOffMaxRatio !== undefined) {
      out.push('', `Hub with metrics / hub with METRICS_ENABLED=false, max sustained msg/s (best closed-loop run of each): **${r.metricsOnToOffMaxRatio.toFixed(2)}**`);
      if (r.cpuUsPerMessage) {
        const cpu = r.cpuUsPerMessage;
        out.push(
          '',
          `Server CPU per delivered message in those runs: ${cpu.hub.toFixed(1)} µs with metrics, ${cpu['hub-no-metrics'].toFixed(1)} µs without ` +
            `(ratio **${(cpu.hub / cpu['hub-no-metrics']).toFixed(2)}**; unlike msg/s, this does not move with the CPU other processes take)`,
        );
      }
    }
  }
  if (r.idle) out.push('', '### Idle agent sockets (each announced once with an acknowledged SYSTEM_LOG)', '', ...idleTable(r.idle));
  if (r.targets.length > 0) {
    out.push('', '### Issue 3 targets', '', '| figure | measured | target | met |', '|---|---:|---|---|');
    for (const t of r.targets) out.push(`| ${t.figure} | ${t.measured < 100 ? t.measured.toFixed(1) : int(t.measured)} | ${t.target} | ${t.met ? 'yes' : '**no**'} |`);
  }
  for (const p of r.profiles.chat ?? []) out.push('', `### Where the hub's ${p.thread} thread spends its time during the chat runs (under --cpu-prof)`, '', formatProfile(p));
  for (const p of r.profiles.idle ?? []) out.push('', `### Where the hub's ${p.thread} thread spends its time while idle sockets connect (under --cpu-prof)`, '', formatProfile(p));
  if (r.failures.length > 0) out.push('', '### FAILURES', '', ...r.failures.map((f) => `- ${f}`));
  return out.join('\n');
}

/** µs of one core the server spent per delivered message in a run. */
export function cpuUsPerMessage(row: ChatRow): number {
  return ((row.serverCpuPercent / 100) * 1e6) / row.deliveredRate;
}

/** The best closed-loop run of a server: its maximum sustained rate. */
export function maxSustained(chat: ChatRow[], server: ChatRow['server']): ChatRow | undefined {
  return chat.filter((r) => r.server === server && r.mode.kind === 'closed').sort((a, b) => b.deliveredRate - a.deliveredRate)[0];
}

/** The performance targets against what was measured. */
export function targetsOf(chat: ChatRow[], idle: IdleResult | undefined): Results['targets'] {
  const targets: Results['targets'] = [];
  const hubMax = maxSustained(chat, 'hub');
  if (hubMax) targets.push({ figure: 'hub max sustained msg/s', measured: hubMax.deliveredRate, target: '≥ 15,000', met: hubMax.deliveredRate >= 15_000 });
  const hub5k = chat.find((r) => r.server === 'hub' && r.mode.kind === 'open' && r.mode.rate === 5_000);
  if (hub5k) targets.push({ figure: 'hub p99 ms at 5,000 msg/s', measured: hub5k.latency.p99, target: '≤ 50 ms', met: hub5k.latency.p99 <= 50 });
  if (idle) targets.push({ figure: 'hub KB RSS per idle socket', measured: idle.kbPerSocket, target: '≤ 16 KB', met: idle.kbPerSocket <= 16 });
  return targets;
}
