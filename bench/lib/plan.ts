// What a run does: quick or full, which scenarios, which store, extra hub settings, and the few
// switches that change a scenario's load. Each scenario derives its own settings from this.
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake on the command line: shown without a stack trace. */
export class UsageError extends Error {}

/** Machine CPU (100 = one core) other processes may use before the run starts without it counting as busy. */
export const QUIET_CPU = 10;

export interface Plan {
  mode: 'quick' | 'full';
  /** Scenario keys to run; undefined = all. */
  only?: string[];
  /** The hub's store: the embedded SQLite file, or a scratch PostgreSQL database. */
  store: 'sqlite' | 'postgres';
  /** PostgreSQL server to create the scratch databases on (any database the user may connect to). */
  pgUrl: string;
  /** Extra environment for every hub process (`--hub-env KEY=VALUE`), applied last. */
  hubEnv: Record<string, string>;
  /** Run the hubs under --cpu-prof and summarise where their time went. */
  profile: boolean;
  /** Closed-loop windows (frames in flight per sender), one run each. */
  windows?: number[];
  /** Idle sockets to hold, one measurement per step. */
  idleSockets?: number[];
  /** How long to wait for other processes to quieten down before starting anyway. */
  quietWaitMs: number;
  /** Keep the run's folder (hub logs, databases) even when nothing failed. */
  keep: boolean;
}

const USAGE = `usage: npm run bench -- [--quick] [--only LIST] [--pg] [--hub-env KEY=VALUE]... [--profile]
  --quick              about a minute and a half: short runs, small counts (the full run: about 10 minutes)
  --only LIST          scenarios to run, by key (default: all); --list shows them
  --list               print the scenarios and exit
  --pg                 the hub on PostgreSQL: a scratch database is created and dropped (default: SQLite)
  --pg-url URL         PostgreSQL to create it on (default $BENCH_DATABASE_URL, $TEST_DATABASE_URL,
                       or postgres://postgres@127.0.0.1:5432/test)
  --hub-env KEY=VALUE  extra environment for every hub process (repeatable), e.g. LOG_LEVEL=info
  --profile            run the hubs under --cpu-prof and print their top self-time functions
  --keep               keep the run's folder (hub logs, SQLite files); it is always kept after a failure
  --windows LIST       closed-loop frames in flight per sender, one run each (default 16,256; quick 256)
  --idle-sockets LIST  idle sockets, measured at each step (default 10000,19000; quick 2000)`;

const positive = (text: string) => {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive whole number, got ${text}\n${USAGE}`);
  return n;
};

const list = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map(positive));

function hubEnvOf(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--hub-env takes KEY=VALUE, got ${pair}\n${USAGE}`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

export interface Command {
  plan: Plan;
  /** Print the scenarios and exit. */
  list: boolean;
}

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  only: { type: 'string' },
  list: { type: 'boolean', default: false },
  pg: { type: 'boolean', default: false },
  'pg-url': { type: 'string' },
  'hub-env': { type: 'string', multiple: true, default: [] as string[] },
  profile: { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
  windows: { type: 'string' },
  'idle-sockets': { type: 'string' },
  help: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

export function parseCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const quick = values.quick!;
  return {
    list: values.list!,
    plan: {
      mode: quick ? 'quick' : 'full',
      only: values.only
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      store: values.pg ? 'postgres' : 'sqlite',
      pgUrl: values['pg-url'] ?? env['BENCH_DATABASE_URL'] ?? env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
      hubEnv: hubEnvOf(values['hub-env']!),
      profile: values.profile!,
      windows: list(values.windows),
      idleSockets: list(values['idle-sockets']),
      quietWaitMs: quick ? 5_000 : 60_000,
      keep: values.keep!,
    },
  };
}

/**
 * Where a run's report goes (`bench/results/<name>.md` and `.json`). Only a full run of every
 * scenario at its default load writes the record that is committed and quoted in the README:
 * `latest` on SQLite, `latest-pg` on PostgreSQL. Any other run (quick, `--only`, `--profile`, other
 * hub settings or loads) writes `last-run`, which git ignores, so trying one scenario never
 * overwrites the record with a partial report.
 */
export function reportName(plan: Plan): 'latest' | 'latest-pg' | 'last-run' {
  const record =
    plan.mode === 'full' &&
    plan.only === undefined &&
    !plan.profile &&
    Object.keys(plan.hubEnv).length === 0 &&
    plan.windows === undefined &&
    plan.idleSockets === undefined;
  if (!record) return 'last-run';
  return plan.store === 'postgres' ? 'latest-pg' : 'latest';
}

/** `quick` or `full` value of a setting. */
export const pick = <T>(plan: Plan, quick: T, full: T): T => (plan.mode === 'quick' ? quick : full);
