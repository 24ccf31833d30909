// The hub's benchmark: `npm run bench [-- --quick] [-- --pg] [-- --only targeted,rawRelay]`. See
// bench/README.md. The orchestrator only starts processes, sets up users over HTTP and reads /proc:
// the servers under test and the load generators each run in their own child process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { runStage, runToExit } from './lib/lifecycle.js';
import { createContext, Live } from './lib/context.js';
import { hubEntry } from './lib/entry.js';
import { sleep } from './lib/net.js';
import { parseCommand, QUIET_CPU, reportName } from './lib/plan.js';
import { ForeignCpuMeter, machine } from './lib/procfs.js';
import { loadScenarios, select } from './lib/registry.js';
import { renderReport, type Results } from './lib/report.js';
import { postgresStores, sqliteStores, type StoreFactory } from './lib/stores.js';
import { ratiosOf, targetsOf } from './lib/targets.js';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const live = new Live();
/** Scratch databases to drop, also when the run is interrupted. */
let stores: StoreFactory | undefined;

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

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const { plan, list } = parseCommand(args);
  const scenarios = select(await loadScenarios(join(ROOT, 'bench', 'scenarios')), plan.only);
  if (list) {
    for (const s of scenarios) process.stdout.write(`${s.key.padEnd(10)} ${s.title}\n  ${JSON.stringify(s.settings(plan))}\n`);
    return 0;
  }
  const entry = hubEntry(ROOT);
  const results: Results = {
    startedAt: new Date().toISOString(),
    args,
    mode: plan.mode,
    store: plan.store,
    hubEnv: plan.hubEnv,
    hubEntry: entry.why,
    machine: machine(),
    backgroundCpuPercent: 0,
    scenarios: {},
    ratios: {},
    targets: [],
    settings: {},
    details: {},
    profiles: {},
    failures: [],
  };
  const m = results.machine;
  log(
    `${plan.mode} run on ${m.cpuModel} (${m.cores} cores), Node ${m.node}, hub ${m.hubCommit} (${entry.why}), store ${plan.store}: ${scenarios.map((s) => s.key).join(', ')}`,
  );
  results.backgroundCpuPercent = await waitForQuiet(plan.quietWaitMs);
  const workDir = mkdtempSync(join(os.tmpdir(), 'hub-bench-'));
  stores = plan.store === 'postgres' ? await postgresStores(plan.pgUrl) : sqliteStores(workDir);
  const sections: string[][] = [];
  try {
    for (const scenario of scenarios) {
      const settings = scenario.settings(plan);
      results.settings[scenario.key] = settings;
      log(`== ${scenario.key}: ${scenario.title} ${JSON.stringify(settings)}`);
      const { ctx, profiles } = createContext(scenario.key, {
        plan,
        log,
        workDir,
        root: ROOT,
        resultsDir: RESULTS_DIR,
        stores: stores,
        live,
        hub: { script: entry.script },
      });
      const { value: report, error, cleanUpError } = await runStage(scenario.key, () => scenario.run(ctx, settings), { live, log });
      if (report) {
        results.scenarios[scenario.key] = report.summary;
        results.details[scenario.key] = report.details;
        sections.push(report.markdown);
        results.failures.push(...report.problems.map((p) => `${scenario.key}: ${p}`));
      }
      if (error !== undefined) results.failures.push(`${scenario.key}: the scenario stopped: ${message(error)}`);
      if (cleanUpError !== undefined) results.failures.push(`${scenario.key}: stopping what it started failed: ${message(cleanUpError)}`);
      if (profiles.length > 0) results.profiles[scenario.key] = profiles;
    }
  } finally {
    await stores.dispose().catch((err: unknown) => results.failures.push(`dropping the scratch databases failed: ${message(err)}`));
    stores = undefined;
  }

  results.ratios = ratiosOf(results.scenarios);
  results.targets = targetsOf(results.scenarios, results.ratios);
  results.finishedAt = new Date().toISOString();

  mkdirSync(RESULTS_DIR, { recursive: true });
  const name = reportName(plan);
  const jsonPath = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  const markdown = renderReport(results, sections);
  writeFileSync(join(RESULTS_DIR, `${name}.md`), `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  log(`wrote ${jsonPath} and ${name}.md beside it${name === 'last-run' ? ' (not a full run at the default load: latest.md keeps the last full one)' : ''}`);
  if (results.failures.length > 0 || plan.keep) log(`kept ${workDir} (hub logs and databases) for inspection`);
  else rmSync(workDir, { recursive: true, force: true });
  if (results.failures.length > 0) {
    log(`!!! ${results.failures.length} failure(s): see FAILURES above`);
    return 1;
  }
  return 0;
}

runToExit(main, { live, log, dispose: () => stores?.dispose() });
