// The command line of `hub-agent`, parsed once with commander: subcommands, per-command `--help`,
// `--version`, and a one-line error naming the one thing wrong. Parsing only describes what to run
// (an Invocation); main.ts runs it. Arguments are checked first, then the hub's URL, then the token.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AuthorizationStatuses } from '../protocol/butler.js';
import { LogLevels, type LogLevel } from '../protocol/messages.js';
import { HumanRoles } from '../protocol/roles.js';

export const AgentKinds = ['echo', 'weather', 'code-review', 'security-audit'] as const;
export type AgentKind = (typeof AgentKinds)[number];

/** A user named by id (digits) or by username. */
export type UserRef = number | string;

export type Invocation =
  | { command: AgentKind; since?: number }
  | { command: 'send'; to?: UserRef; type: 'CHAT' | 'SYSTEM_LOG'; level: LogLevel; text: string; wait?: number }
  | { command: 'tail'; since?: number; json: boolean }
  | { command: 'agents list'; json: boolean }
  | { command: 'agents register'; name: string; kind?: string; description?: string; a2a?: string; credential?: string }
  | { command: 'agents rotate' | 'agents delete'; agent: UserRef }
  | { command: 'users list'; role?: string; json: boolean }
  | { command: 'users create'; username: string; role: (typeof HumanRoles)[number]; password: string }
  | { command: 'users password'; user: UserRef; password: string }
  | { command: 'approvals list'; status?: string; json: boolean }
  | { command: 'approvals approve' | 'approvals reject'; actionId: string; note?: string }
  | { command: 'mcp' };

export type Run = Invocation & { url: string; token: string };

/** Either what to run, or what to print and the exit code (help, version, a usage mistake: 2). */
export type Parsed = { ok: true; run: Run } | { ok: false; code: number; stdout: string; stderr: string };

export const DEFAULT_URL = 'http://localhost:8080';
export const USAGE_ERROR = 2;

const isHubUrl = (v: string) => URL.canParse(v) && /^(?:https?|wss?):$/.test(new URL(v).protocol);

function messageId(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError('must be a message id (a whole number, 0 or more)');
  return Number(value);
}

export function userRef(value: string): UserRef {
  if (/^\d+$/.test(value)) {
    const id = Number(value);
    if (id >= 1 && Number.isSafeInteger(id)) return id;
    throw new InvalidArgumentError('must be a user name or an id from 1');
  }
  // eslint-disable-next-line no-control-regex
  if (value.trim() === '' || value.length > 64 || /[\u0000-\u001f\u007f]/.test(value)) throw new InvalidArgumentError('must be a user name or an id');
  return value;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 3600) throw new InvalidArgumentError('must be a number of seconds from 1 to 3600');
  return n;
}

const jsonOption = () => new Option('--json', 'print JSON instead of a header row and one line per item');
const passwordOption = () =>
  new Option('--password <password>', 'the password, 8 characters or more (prefer $HUB_USER_PASSWORD: arguments show in ps)').env('HUB_USER_PASSWORD');
const NO_PASSWORD = 'a password is required: set HUB_USER_PASSWORD (or pass --password)';

/** How long `send --wait` waits for the reply unless told: Butler's longest answer (BUTLER_TIMEOUT's default). */
export const DEFAULT_WAIT_S = 120;

const AGENT_SETTINGS = `
Settings come from the environment (or a .env file in the working directory):
  weather         WEATHER_API_KEY (required), WEATHER_LOCATION, WEATHER_API_URL, WEATHER_INTERVAL
  code-review     CODE_REVIEW_API_KEY, CODE_REVIEW_BASE_URL, CODE_REVIEW_MODEL
  security-audit  SECURITY_AUDIT_ROOT, SECURITY_ADVISORY_FILE, SECURITY_ADVISORY_URL, SECURITY_API_KEY`;

/** The program; each action records its Invocation through `chosen`. */
export function createProgram(version: string, chosen: (invocation: Invocation) => void, out: { stdout(s: string): void; stderr(s: string): void }): Command {
  const program = new Command('hub-agent')
    .description('Runs an example agent, sends a message, tails what a user receives, or manages agents, users and approvals on an agent messaging hub.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help (also after a command: hub-agent send --help)')
    .addOption(new Option('--url <url>', `the hub (default $HUB_URL, else ${DEFAULT_URL})`))
    .addOption(new Option('--token <token>', "an agent's api_token or a human's JWT (default $HUB_TOKEN; prefer the variable: arguments show in ps)"))
    .configureOutput({
      writeOut: out.stdout,
      writeErr: out.stderr,
      outputError: (message, write) => write(`hub-agent: ${message.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .showSuggestionAfterError(true)
    .addHelpText('after', `\nExit codes: 0 done (or stopped with Ctrl-C), 1 the hub refused or could not be reached, 2 a usage mistake.`);

  for (const kind of AgentKinds) {
    program
      .command(kind)
      .description(`run the ${kind} example agent with an agent's token`)
      .option('--since <id>', 'resume after this message id', messageId)
      .addHelpText('after', AGENT_SETTINGS)
      .action((o: { since?: number }) => chosen({ command: kind, since: o.since }));
  }

  program
    .command('send')
    .description('send one message; prints its stored id once the hub confirms it (15 s at most)')
    .argument('<text...>', 'the message')
    .option('--to <name|id>', 'the recipient, by user name or id', userRef)
    .addOption(new Option('--broadcast', 'a CHAT without --to: to every connection, dashboards and agents').conflicts('to'))
    .addOption(new Option('--type <type>', 'frame type (a SYSTEM_LOG without --to goes to the dashboards)').choices(['CHAT', 'SYSTEM_LOG']).default('CHAT'))
    .addOption(new Option('--level <level>', 'SYSTEM_LOG level').choices(LogLevels).default('INFO'))
    .option('--wait', "then wait for the recipient's reply and print it")
    .option('--timeout <seconds>', `with --wait: how long to wait for the reply (default ${DEFAULT_WAIT_S})`, seconds)
    .action(
      (
        text: string[],
        o: { to?: UserRef; broadcast?: boolean; type: 'CHAT' | 'SYSTEM_LOG'; level: LogLevel; wait?: boolean; timeout?: number },
        command: Command,
      ) => {
        // A chat without a recipient reaches every agent too: only on purpose.
        if (o.type === 'CHAT' && o.to === undefined && !o.broadcast) command.error('say who gets it: --to <name|id>, or --broadcast for every connection');
        if (o.wait && o.to === undefined) command.error('--wait needs --to: only a recipient replies');
        if (o.timeout !== undefined && !o.wait) command.error('--timeout goes with --wait');
        chosen({ command: 'send', to: o.to, type: o.type, level: o.level, text: text.join(' '), wait: o.wait ? (o.timeout ?? DEFAULT_WAIT_S) : undefined });
      },
    );

  program
    .command('tail')
    .description('print what this user receives, one line per message, until Ctrl-C')
    .option('--since <id>', 'resume after this message id', messageId)
    .option('--json', 'print every frame as one JSON line', false)
    .action((o: { since?: number; json: boolean }) => chosen({ command: 'tail', since: o.since, json: o.json }));

  const agents = program.command('agents').description('list, register, rotate the token of, or delete agents (admin)');
  agents
    .command('list')
    .description('agents and Butler with presence (any user)')
    .addOption(jsonOption())
    .action((o: { json?: boolean }) => chosen({ command: 'agents list', json: o.json === true }));
  agents
    .command('register')
    .description('register an agent; prints its api_token (shown this once), or with --a2a the id of the remote agent')
    .argument('<name>', 'the agent user name')
    .option('--kind <kind>', 'agent_kind (default generic)')
    .option('--description <text>', 'what it does')
    .option('--a2a <card-url>', 'a remote A2A agent, by the URL of its agent card: the hub calls it (no api_token)')
    .addOption(
      new Option('--credential <token>', 'with --a2a: the bearer credential the hub sends the agent (prefer $HUB_A2A_CREDENTIAL: arguments show in ps)').env(
        'HUB_A2A_CREDENTIAL',
      ),
    )
    .action((name: string, o: { kind?: string; description?: string; a2a?: string; credential?: string }) =>
      chosen({ command: 'agents register', name, kind: o.kind, description: o.description, a2a: o.a2a, credential: o.credential }),
    );
  agents
    .command('rotate')
    .description('give an agent a new api_token (printed); the old one stops working')
    .argument('<name|id>', 'the agent', userRef)
    .action((agent: UserRef) => chosen({ command: 'agents rotate', agent }));
  agents
    .command('delete')
    .description('delete an agent')
    .argument('<name|id>', 'the agent', userRef)
    .action((agent: UserRef) => chosen({ command: 'agents delete', agent }));

  const users = program.command('users').description("list or create users, set a user's password (admin)");
  users
    .command('list')
    .description('users, agents included')
    .option('--role <role>', 'only this role (ADMIN, MEMBER, AGENT, BUTLER)')
    .addOption(jsonOption())
    .action((o: { role?: string; json?: boolean }) => chosen({ command: 'users list', role: o.role, json: o.json === true }));
  users
    .command('create')
    .description('create a person who can log in; the password comes from $HUB_USER_PASSWORD (or --password)')
    .argument('<username>', 'the user name')
    .addOption(new Option('--role <role>', 'role').choices(HumanRoles).default('MEMBER'))
    .addOption(passwordOption())
    .action((username: string, o: { role: (typeof HumanRoles)[number]; password?: string }, command: Command) => {
      if (!o.password) command.error(NO_PASSWORD);
      chosen({ command: 'users create', username, role: o.role, password: o.password });
    });
  users
    .command('password')
    .description("set a person's password from $HUB_USER_PASSWORD (or --password)")
    .argument('<name|id>', 'the person', userRef)
    .addOption(passwordOption())
    .action((user: UserRef, o: { password?: string }, command: Command) => {
      if (!o.password) command.error(NO_PASSWORD);
      chosen({ command: 'users password', user, password: o.password });
    });

  const approvals = program.command('approvals').description("list and answer Butler's authorization requests");
  approvals
    .command('list')
    .description('requests you asked for or may answer, newest first: who decided and when, or when a pending one expires')
    .addOption(new Option('--status <status>', 'only this status').choices(AuthorizationStatuses))
    .addOption(jsonOption())
    .action((o: { status?: string; json?: boolean }) => chosen({ command: 'approvals list', status: o.status, json: o.json === true }));
  for (const verb of ['approve', 'reject'] as const) {
    approvals
      .command(verb)
      .description(`${verb} a pending request`)
      .argument('<action_id>', 'the request, as `approvals list` shows it')
      .option('--note <text>', 'why, stored with the decision (whoever may see the request reads it)')
      .action((actionId: string, o: { note?: string }) => chosen({ command: `approvals ${verb}`, actionId, note: o.note }));
  }
  program
    .command('mcp')
    .description("serve the hub's MCP tools on stdin/stdout, for MCP clients that launch local servers (token: a personal access token)")
    .action(() => chosen({ command: 'mcp' }));
  return program;
}

/** Parses argv (without node and the script) against the environment. */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined>, version = '0.0.0'): Parsed {
  let stdout = '';
  let stderr = '';
  let invocation: Invocation | undefined;
  const program = createProgram(version, (i) => (invocation = i), { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  if (argv.length === 0) return { ok: false, code: USAGE_ERROR, stdout: '', stderr: program.helpInformation() };
  try {
    program.parse(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // Help and --version exit 0; a group without its subcommand (`hub-agent agents`) shows its help as a mistake.
    return { ok: false, code: err.exitCode === 0 ? 0 : USAGE_ERROR, stdout, stderr };
  }
  if (invocation === undefined) return { ok: false, code: USAGE_ERROR, stdout, stderr: stderr || program.helpInformation() };
  const options = program.opts<{ url?: string; token?: string }>();
  const url = options.url || env['HUB_URL'] || DEFAULT_URL;
  const mistake = (line: string): Parsed => ({ ok: false, code: USAGE_ERROR, stdout, stderr: `hub-agent: ${line}\n` });
  if (!isHubUrl(url)) return mistake(`--url must be an http(s):// or ws(s):// URL (got ${JSON.stringify(url)})`);
  const token = options.token || env['HUB_TOKEN'];
  if (!token) return mistake('no token: pass --token or set HUB_TOKEN');
  return { ok: true, run: { ...invocation, url, token } };
}
