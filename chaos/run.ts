// The hub's attack harness: `npm run chaos [-- --quick] [-- --pg] [-- --only crash,wsFuzz]`. See
// chaos/README.md. Each check gets a fresh hub (a child process on 127.0.0.1, its own store and log)
// and generator processes; everything it started is stopped when it ends, fails or is interrupted.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { describeError, runStage, runToExit } from '../bench/lib/lifecycle.js';
import { createContext, Live } from '../bench/lib/context.js';
import { machine } from '../bench/lib/procfs.js';
import { loadScenarios, select } from '../bench/lib/registry.js';
import { postgresStores, sqliteStores, type StoreFactory } from '../bench/lib/stores.js';
import { newJwtSecret } from '../bench/lib/servers.js';
import type { ChaosContext, Check } from './lib/check.js';
import { hubEntry } from '../bench/lib/entry.js';
import { parseCommand } from './lib/plan.js';
import { passed, renderReport, type CheckOutcome } from './lib/report.js';
import { SecretBook } from './lib/secrets.js';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS_DIR = join(ROOT, 'chaos', 'results');
const t0 = performance.now();
const log = (line: string) => process.stderr.write(`[chaos ${((performance.now() - t0) / 1000).toFixed(0).padStart(4)}s] ${line}\n`);
const live = new Live();
let stores: StoreFactory | undefined;

/** The hub settings of every check: the defaults under attack, with a known secret and admin password, logging at info. */
const HUB_ENV = { LOG_LEVEL: 'info' };

async function main(): Promise<number> {
  const { plan, list } = parseCommand(process.argv.slice(2));
  const checks = select(await loadScenarios<Check>(join(ROOT, 'chaos', 'checks'), 'defineCheck'), plan.only);
  if (list) {
    for (const c of checks) process.stdout.write(`${c.key.padEnd(10)} ${c.title}\n  ${JSON.stringify(c.settings(plan))}\n`);
    return 0;
  }
  const entry = hubEntry(ROOT);
  const header = { mode: plan.mode, store: plan.store, startedAt: new Date().toISOString(), machine: machine(), hubEntry: entry.why };
  log(`${plan.mode} run, store ${plan.store}, hub ${header.machine.hubCommit} (${entry.why}): ${checks.map((c) => c.key).join(', ')}`);
  const workDir = mkdtempSync(join(os.tmpdir(), 'hub-chaos-'));
  const answersDir = join(workDir, 'answers');
  mkdirSync(answersDir, { recursive: true });
  stores = plan.store === 'postgres' ? await postgresStores(plan.pgUrl) : sqliteStores(workDir);
  const secrets = new SecretBook();
  const jwtSecret = newJwtSecret();
  secrets.add('JWT secret', jwtSecret);
  const outcomes: CheckOutcome[] = [];
  try {
    for (const check of checks) {
      const settings = check.settings(plan);
      log(`== ${check.key}: ${check.title} ${JSON.stringify(settings)}`);
      const { ctx: base } = createContext(
        check.key,
        { plan, log, workDir, root: ROOT, resultsDir: RESULTS_DIR, stores, live, hub: { script: entry.script, rateLimited: true } },
        jwtSecret,
      );
      const ctx: ChaosContext = {
        ...base,
        jwtSecret,
        secrets,
        answersDir,
        hub: (name, store, env = {}, port) => base.startHub(name, store, { ...HUB_ENV, ...env }, port),
        hubLog: (name) => join(workDir, name, 'hub.log'),
      };
      const started = performance.now();
      const outcome: CheckOutcome = { key: check.key, title: check.title, seconds: 0 };
      const { value: report, error, cleanUpError } = await runStage(check.key, () => check.run(ctx, settings), { live, log });
      outcome.report = report;
      if (error !== undefined) outcome.crashed = describeError(error);
      else if (cleanUpError !== undefined) outcome.crashed = `stopping what it started failed: ${describeError(cleanUpError)}`;
      outcome.seconds = (performance.now() - started) / 1000;
      outcomes.push(outcome);
      log(`${check.key}: ${passed(outcome) ? 'pass' : 'FAIL'} in ${Math.round(outcome.seconds)} s`);
    }
  } finally {
    await stores.dispose().catch((err: unknown) => log(`!!! dropping the scratch databases failed: ${describeError(err)}`));
    stores = undefined;
  }
  const markdown = renderReport(header, outcomes);
  mkdirSync(RESULTS_DIR, { recursive: true });
  // Only a full run of every check is the record (committed, quoted in the README); a quick or partial
  // run goes to last-run.md, which git ignores.
  const reportFile = plan.mode === 'full' && plan.only === undefined ? 'latest.md' : 'last-run.md';
  writeFileSync(join(RESULTS_DIR, reportFile), `${markdown}\n`);
  process.stdout.write(`${markdown}\n`);
  const failed = outcomes.some((o) => !passed(o));
  if (failed || plan.keep) log(`kept ${workDir} (hub logs, answers, SQLite files)`);
  else rmSync(workDir, { recursive: true, force: true });
  return failed ? 1 : 0;
}

runToExit(main, { live, log, dispose: () => stores?.dispose() });
