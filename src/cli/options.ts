// The command line of `hub-agent`, parsed once: arguments first, then the environment (and a `.env`
// file in the working directory, read by the caller), checked with zod so a mistake is one line.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { LogLevels } from '../protocol/messages.js';
import { zodIssueMessages } from '../protocol/validation.js';

export const AgentKinds = ['echo', 'weather', 'code-review', 'security-audit'] as const;
export type AgentKind = (typeof AgentKinds)[number];

export const USAGE = `Usage:
  hub-agent <echo|weather|code-review|security-audit> [--url URL] [--token TOKEN] [--since ID]
  hub-agent send [--url URL] [--token TOKEN] [--to USER_ID] [--type CHAT|SYSTEM_LOG] [--level LEVEL] <text>
  hub-agent tail [--url URL] [--token TOKEN] [--since ID] [--json]

  --url     the hub (default $HUB_URL, else http://localhost:8080)
  --token   an agent's api_token or a human's JWT (default $HUB_TOKEN; prefer the variable:
            arguments are visible to other users of the machine)
  --since   resume after this message id
  --to      send to this user id (default: broadcast)
  --json    tail prints every frame as one JSON line

Agents read their settings from the environment: WEATHER_API_KEY, WEATHER_LOCATION, WEATHER_API_URL,
WEATHER_INTERVAL; CODE_REVIEW_API_KEY, CODE_REVIEW_BASE_URL, CODE_REVIEW_MODEL; SECURITY_API_KEY,
SECURITY_AUDIT_ROOT, SECURITY_ADVISORY_FILE, SECURITY_ADVISORY_URL.
Progress and connection state go to stderr; Ctrl-C stops cleanly.`;

const id = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const isHubUrl = (v: string) => URL.canParse(v) && /^(?:https?|wss?):$/.test(new URL(v).protocol);
const common = {
  url: z.string().refine(isHubUrl, 'must be an http(s):// or ws(s):// URL'),
  token: z.string().min(1),
};

const command = z.discriminatedUnion('command', [
  z.object({ command: z.enum(AgentKinds), ...common, since: id.optional() }),
  z.object({
    command: z.literal('send'),
    ...common,
    to: id.min(1).optional(),
    type: z.enum(['CHAT', 'SYSTEM_LOG']).default('CHAT'),
    level: z.enum(LogLevels).default('INFO'),
    text: z.string().min(1, 'is required: hub-agent send <text>'),
  }),
  z.object({ command: z.literal('tail'), ...common, since: id.optional(), json: z.boolean().default(false) }),
]);
export type Command = z.infer<typeof command>;

export type Parsed = { ok: true; command: Command } | { ok: false; help: boolean; message?: string };

export function parseCommandLine(argv: string[], env: Record<string, string | undefined>): Parsed {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        since: { type: 'string' },
        to: { type: 'string' },
        type: { type: 'string' },
        level: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return { ok: false, help: false, message: (err as Error).message };
  }
  const { values, positionals } = parsed;
  if (values['help'] || positionals.length === 0) return { ok: false, help: true };
  const [name, ...rest] = positionals;
  const input = {
    command: name,
    url: values['url'] || env['HUB_URL'] || 'http://localhost:8080',
    token: values['token'] || env['HUB_TOKEN'],
    since: values['since'],
    to: values['to'],
    type: values['type'],
    level: values['level'],
    json: values['json'],
    text: rest.join(' '),
  };
  const known = ['send', 'tail', ...AgentKinds];
  if (!known.includes(String(name))) return { ok: false, help: false, message: `unknown command "${name}"; expected one of ${known.join(', ')}` };
  if (!input.token) return { ok: false, help: false, message: 'no token: pass --token or set HUB_TOKEN' };
  const result = command.safeParse(input);
  if (result.success) return { ok: true, command: result.data };
  // Options are named as they are typed (`--since must be …`).
  const messages = zodIssueMessages(result.error, input).map((m) => m.replace(/^(url|since|to|type|level|json) /, '--$1 '));
  return { ok: false, help: false, message: messages.slice(0, 3).join('; ') };
}
