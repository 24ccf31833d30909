// The chaos report: a header (machine, commit, store, which hub), one table per check, and the
// closing `N passed, N failed` line. The same markdown goes to stdout and chaos/results/latest.md (a full
// run of every check) or last-run.md (any other run).
import type { Machine } from '../../bench/lib/procfs.js';
import type { CheckReport } from './check.js';

export interface CheckOutcome {
  key: string;
  title: string;
  report?: CheckReport;
  /** The check stopped before it could judge (an exception): it fails. */
  crashed?: string;
  seconds: number;
}

export const passed = (o: CheckOutcome) => o.crashed === undefined && o.report !== undefined && o.report.verdicts.every((v) => v.pass);

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function checkSection(o: CheckOutcome): string[] {
  const out = [`### ${o.key} — ${o.title}: ${passed(o) ? 'PASS' : '**FAIL**'} (${Math.round(o.seconds)} s)`, ''];
  if (o.crashed !== undefined) return [...out, `The check stopped: ${cell(o.crashed)}`];
  const r = o.report!;
  out.push(r.measured, '', '| assertion | measured | expected | result |', '|---|---:|---|---|');
  for (const v of r.verdicts)
    out.push(`| ${cell(v.what)} | ${cell(v.measured)} | ${cell(v.expected)} | ${v.expected === '–' ? '' : v.pass ? 'pass' : '**FAIL**'} |`);
  if (r.notes && r.notes.length > 0) out.push('', ...r.notes);
  return out;
}

export interface RunHeader {
  mode: 'quick' | 'full';
  store: 'sqlite' | 'postgres';
  startedAt: string;
  machine: Machine;
  hubEntry: string;
}

export function renderReport(h: RunHeader, outcomes: CheckOutcome[]): string {
  const m = h.machine;
  const ok = outcomes.filter(passed).length;
  return [
    `## Hub chaos run (${h.mode}, ${h.store === 'postgres' ? 'PostgreSQL' : 'SQLite'}) — ${h.startedAt}`,
    '',
    `Machine: ${m.cpuModel}, ${m.cores} cores, ${Math.round(m.memoryMb).toLocaleString('en-US')} MB, Node ${m.node}, Linux ${m.kernel}; hub at ${m.hubCommit} (${h.hubEntry}).`,
    '',
    '| check | result | seconds |',
    '|---|---|---:|',
    ...outcomes.map((o) => `| ${o.key} | ${passed(o) ? 'pass' : '**FAIL**'} | ${Math.round(o.seconds)} |`),
    ...outcomes.flatMap((o) => ['', ...checkSection(o)]),
    '',
    `${ok} passed, ${outcomes.length - ok} failed`,
  ].join('\n');
}
