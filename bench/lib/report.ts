// latest.json's shape, and the markdown report printed on stdout and kept beside it.
import type { RunRow, SeriesResult } from '../phases/load.js';
import { QUIET_CPU } from './plan.js';
import type { Machine } from './procfs.js';
import { formatProfile, type ProfileSummary } from './profile.js';
import type { Figure } from './scenario.js';
import { int, ms } from './stats.js';
import type { Target } from './targets.js';
import type { Usage } from './usage.js';

export interface Results {
  startedAt: string;
  finishedAt?: string;
  /** The command-line arguments of the run. */
  args: string[];
  mode: 'quick' | 'full';
  store: 'sqlite' | 'postgres';
  /** Extra hub environment given with --hub-env. */
  hubEnv: Record<string, string>;
  /** Which hub ran: the build in dist/ or the sources through tsx, and why. */
  hubEntry: string;
  machine: Machine;
  /** Machine CPU (100 = one core) used by other processes just before the run: high means noisy figures. */
  backgroundCpuPercent: number;
  /** Per scenario, the figures compared across runs. */
  scenarios: Record<string, Record<string, Figure>>;
  /** The hub's figures over the references' of the same run. */
  ratios: Record<string, Figure>;
  targets: Target[];
  /** Per scenario, the load it was given. */
  settings: Record<string, object>;
  /** Per scenario, everything it measured. */
  details: Record<string, unknown>;
  /** With --profile: where each scenario's hub spent its time. */
  profiles: Record<string, ProfileSummary[]>;
  failures: string[];
}

/** Other users' processes' CPU, flagged when enough to have skewed the row. */
export const foreign = (cpu: number) => `${int(cpu)}${cpu > QUIET_CPU ? ' ⚠ noisy' : ''}`;

const load = (r: RunRow) =>
  (r.mode.kind === 'closed' ? `closed loop, window ${r.mode.window}` : `open loop ${int(r.mode.rate)}/s`) +
  (r.storedBefore === undefined ? '' : ` (${Math.round(r.storedBefore / 1000)}k stored before)`);

const generators = (u: Usage) => Object.values(u.generatorCpuPercent).map(int).join(' / ');

/** The common columns of a server's usage: CPU (main thread), generators, foreign, loop lag, RSS. */
export const usageHeader = '| server CPU % (main thread) | generators CPU % | foreign CPU % | loop lag p99 / max ms | fsync p99 / max ms | server RSS MB |';
export const usageAlign = '---:|---|---:|---:|---:|---:|';
export const usageCells = (u: Usage) =>
  `| ${int(u.serverCpuPercent)} (${int(u.serverThreads.main)}) | ${generators(u)} | ${foreign(u.foreignCpuPercent)} | ${ms(u.loop.p99)} / ${ms(u.loop.max)} | ` +
  `${ms(u.fsyncMs.p99)} / ${ms(u.fsyncMs.max)} | ${int(u.serverRssMb)} |`;

export function loadTable(rows: RunRow[]): string[] {
  const broadcast = rows.some((r) => r.deliveredRate > r.messageRate * 1.5);
  return [
    `| load | sent | msg/s | ${broadcast ? 'deliveries/s | ' : ''}p50 ms | p99 ms | p99.9 ms | max ms | lost / dup ${usageHeader}`,
    `|---|---:|---:|${broadcast ? '---:|' : ''}---:|---:|---:|---:|---|${usageAlign}`,
    ...rows.map(
      (r) =>
        `| ${load(r)}${r.backlogGrowing ? ' ⚠ backlog grows' : ''} | ${int(r.sent)} | **${int(r.messageRate)}** | ${broadcast ? `**${int(r.deliveredRate)}** | ` : ''}` +
        `${ms(r.latency.p50)} | **${ms(r.latency.p99)}** | ${ms(r.latency.p999)} | ${ms(r.latency.max)} | ` +
        `${r.missing} / ${r.duplicates}${r.cutOff > 0 ? ` (${r.cutOff} cut off, 4011)` : ''}${r.problems.length > 0 ? ' ⚠' : ''} ${usageCells(r.usage)}`,
    ),
  ];
}

const TREND_SECONDS = 5;

/** Mean delivered/s per slice of the window: shows whether the rate holds or sags as the database grows. */
function trend(r: RunRow): string {
  const slices: string[] = [];
  for (let i = 0; i < r.deliveredPerSecond.length; i += TREND_SECONDS) {
    const part = r.deliveredPerSecond.slice(i, i + TREND_SECONDS);
    slices.push(int(part.reduce((a, b) => a + b, 0) / part.length));
  }
  return slices.join(' → ');
}

/** A scenario's heading, its runs, and the per-slice rate of its closed loops. */
export function markdownSection(heading: string, series: SeriesResult, notes: string[] = []): string[] {
  const out = [`### ${heading}`, '', ...notes.flatMap((n) => [n, '']), ...loadTable(series.rows)];
  for (const row of series.rows) {
    if (row.mode.kind === 'closed' && row.deliveredPerSecond.length > TREND_SECONDS) {
      out.push('', `Closed loop, window ${row.mode.window}: delivered/s in successive ${TREND_SECONDS}-second slices: ${trend(row)}`);
    }
  }
  return out;
}

const figure = (v: Figure) => (v === null ? '–' : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : int(v));

/** The whole report: machine, figures, ratios and targets, then each scenario's section. */
export function renderReport(r: Results, sections: string[][]): string {
  const m = r.machine;
  const out = [
    `## Hub benchmark (${r.mode}, ${r.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}) — ${r.startedAt}`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${int(m.memoryMb)} MB, Node ${m.node}, Linux ${m.kernel}; hub at ${m.hubCommit} (${r.hubEntry}). ` +
      `Background load before the run: ${int(r.backgroundCpuPercent)} % of a core${r.backgroundCpuPercent > QUIET_CPU ? ' (**busy machine: figures are noisy**)' : ''}.` +
      (Object.keys(r.hubEnv).length > 0
        ? ` Hub environment: ${Object.entries(r.hubEnv)
            .map(([k, v]) => `\`${k}=${v}\``)
            .join(', ')}.`
        : ''),
    '',
    '| scenario | figures |',
    '|---|---|',
    ...Object.entries(r.scenarios).map(
      ([key, figures]) =>
        `| ${key} | ${Object.entries(figures)
          .map(([k, v]) => `${k} **${figure(v)}**`)
          .join(', ')} |`,
    ),
  ];
  const ratios = Object.entries(r.ratios);
  if (ratios.length > 0) out.push('', `Ratios in this run: ${ratios.map(([k, v]) => `${k} **${figure(v)}**`).join(', ')}`);
  if (r.targets.length > 0) {
    out.push('', '### Targets', '', '| figure | measured | target | met |', '|---|---:|---|---|');
    for (const t of r.targets) out.push(`| ${t.figure} | ${t.measured === null ? '–' : figure(t.measured)} | ${t.target} | ${t.met ? 'yes' : '**no**'} |`);
  }
  for (const section of sections) out.push('', ...section);
  for (const [key, profiles] of Object.entries(r.profiles)) {
    for (const p of profiles) out.push('', `### Where the hub's ${p.thread} thread spent its time in ${key} (under --cpu-prof)`, '', formatProfile(p));
  }
  if (r.failures.length > 0) out.push('', '### FAILURES', '', ...r.failures.map((f) => `- ${f}`));
  return out.join('\n');
}
