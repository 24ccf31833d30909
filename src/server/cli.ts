// `agent-hub`: the hub's own command (the @agent-hub/server package's bin): start the hub, apply the
// migrations, add an admin. Configuration comes from the environment and ./.env, as for `npm start`.
// Exit codes: 0 done, 1 the command failed (one line says why), 2 a usage mistake.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { MigrationError } from '../store/migrate.js';
import { fixNativeServer } from './nativeFix.js';
import { failedToStart, runHub } from './start.js';
import { CommandError, createAdminCommand, migrateCommand } from './storeCommands.js';

const HELP_AFTER = `
Configuration: environment variables, and a .env file in the working directory (the environment wins).
With none, the hub runs in development mode on port 8080 with embedded SQLite in ./data, and creates the
admin "admin" / "admin123" on first start. The main ones:
  SERVER_HOST, SERVER_PORT     where HTTP and WebSocket listen (0.0.0.0, 8080)
  DB_DRIVER, DB_PATH           sqlite (./data/hub.db) or postgres with DATABASE_URL
  APP_ENV=production           needs JWT_SECRET (32+ characters), INITIAL_ADMIN_USER and INITIAL_ADMIN_PASS
  BUTLER_BASE_URL, BUTLER_MODEL  Butler's OpenAI-compatible model (safe mode without)
  LOG_LEVEL, LOG_FORMAT        info; json or pretty

Examples:
  npx agent-hub start
  SERVER_PORT=9000 DB_DRIVER=postgres DATABASE_URL=postgres://hub@db/hub npx agent-hub migrate
  printf '%s\\n' "$PASSWORD" | npx agent-hub create-admin ops
`;

/** The version of the package this file ships in: the package.json nearest above it. */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const version = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
      return typeof version === 'string' ? version : 'unknown';
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/** One line typed at a terminal without echo. */
async function promptHidden(question: string): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  try {
    const answer = new Promise<string>((resolve) => rl.question(question, resolve));
    muted = true;
    return await answer;
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}

/** The new admin's password: typed twice at a terminal, else the first line of stdin (never an argument: it would show in `ps`). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) {
    const first = await promptHidden('Password: ');
    const again = await promptHidden('Password again: ');
    if (first !== again) throw new CommandError('the two passwords differ');
    return first;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

const out = { stdout: (line: string) => process.stdout.write(`${line}\n`) };

/** Runs a store command; its failure is one line on stderr and exit 1. */
async function finish(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const known = err instanceof CommandError || err instanceof ConfigError || err instanceof MigrationError;
    process.stderr.write(`agent-hub: ${known ? '' : 'failed: '}${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}

export function createProgram(): Command {
  const program = new Command('agent-hub')
    .description('The agent messaging hub: HTTP JSON API, WebSocket and dashboard on one port')
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help (also after a command: agent-hub start --help)')
    .addHelpText('after', HELP_AFTER)
    .showHelpAfterError('(run agent-hub --help for the commands)')
    .exitOverride();
  program
    .command('start')
    .description('start the hub and its dashboard (stops cleanly on Ctrl-C or SIGTERM)')
    .action(async () => {
      if (!fixNativeServer()) process.exit(1);
      await runHub().catch(failedToStart);
    });
  program
    .command('migrate')
    .description('apply the pending database migrations, then exit (start applies them too)')
    .action(() => finish(() => migrateCommand(out)));
  program
    .command('create-admin')
    .description('add an admin; the password is typed at the prompt or read from the first line of stdin')
    .argument('<username>', "the new admin's user name")
    .action((username: string) => finish(async () => createAdminCommand({ username, password: await readPassword() }, out)));
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = createProgram();
  if (argv.length === 0) {
    // No command is a usage mistake: the help says which there are.
    program.outputHelp({ error: true });
    process.exitCode = 2;
    return;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    // Help and --version end with exit 0; a usage mistake (commander printed it) with 2.
    if (err instanceof CommanderError) process.exitCode = err.exitCode === 0 ? 0 : 2;
    else throw err;
  }
}
