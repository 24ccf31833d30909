// The command line of `npm run chaos`: quick or full, which checks, which store. It yields the
// bench's Plan, so the bench's hub launcher, stores and generators serve the chaos run unchanged.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type Plan } from '../../bench/lib/plan.js';

export { UsageError };

const USAGE = `usage: npm run chaos -- [--quick] [--pg] [--only LIST] [--list] [--keep]
  --quick        a minute or two: small counts, short runs (the full run: about 15 minutes per store)
  --pg           the hub on PostgreSQL: a scratch database per check, dropped afterwards (default: SQLite)
  --pg-url URL   PostgreSQL to create them on (default $CHAOS_DATABASE_URL, $TEST_DATABASE_URL,
                 or postgres://postgres@127.0.0.1:5432/test)
  --only LIST    checks to run, by key (default: all); --list shows them
  --list         print the checks and their load, and exit
  --keep         keep the run's folder (hub logs, answers, SQLite files); it is always kept after a failure`;

const OPTIONS = {
  quick: { type: 'boolean', default: false },
  pg: { type: 'boolean', default: false },
  'pg-url': { type: 'string' },
  only: { type: 'string' },
  list: { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

export interface Command {
  plan: Plan;
  list: boolean;
}

export function parseCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Command {
  let values;
  try {
    values = parseArgs({ args: argv, options: OPTIONS }).values;
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  return {
    list: values.list!,
    plan: {
      mode: values.quick ? 'quick' : 'full',
      only: values.only
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
      store: values.pg ? 'postgres' : 'sqlite',
      pgUrl: values['pg-url'] ?? env['CHAOS_DATABASE_URL'] ?? env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
      hubEnv: {},
      profile: false,
      quietWaitMs: 0,
      keep: values.keep!,
    },
  };
}
