// Wire shapes of the chat-platform connector (wire.md §3): the fields a client sends (snake_case or
// camelCase), the answers, and the log page. Secrets are only ever written, never read back.
import * as z from 'zod';

/** A connector's lifecycle states (src/connector/machine.ts moves between them). */
export const ConnectorStates = ['draft', 'verified', 'enabled', 'disabled'] as const;
export type ConnectorState = (typeof ConnectorStates)[number];

/** Actions a client can ask for, in the order a dashboard shows them. */
export const ConnectorActions = ['verify', 'update', 'enable', 'disable', 'test_message'] as const;
export type ConnectorAction = (typeof ConnectorActions)[number];

/** GET …/machine: the lifecycle machine as data, for a dashboard to draw. */
export interface MachineDescription {
  id: string;
  initial: ConnectorState;
  states: ConnectorState[];
  /** `from: null` is creation. Guarded transitions name their guard. */
  transitions: Array<{ from: ConnectorState | null; event: string; to: ConnectorState; guard?: string; effects: string[] }>;
  actions: readonly ConnectorAction[];
}

/** Fields whose change makes a verified connector a draft again (they are what the platform checks). */
export const CredentialFields = ['app_id', 'app_secret', 'verification_token', 'encrypt_key'] as const;
export const SecretFields = ['app_secret', 'verification_token', 'encrypt_key'] as const;
export type SecretField = (typeof SecretFields)[number];

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters');
/** A list given as an array, or as one comma- or line-separated text (the older dashboards' form). */
const idList = z.preprocess((v) => (typeof v === 'string' ? v.split(/[\s,]+/).filter(Boolean) : v), z.array(text(128).pipe(z.string().min(1))).max(500));
const callbackUrl = text(2048).refine((v) => v === '' || URL.canParse(v), 'must be a URL');

const fieldSchemas = {
  connector_name: text(128),
  app_id: text(128),
  app_secret: text(512),
  verification_token: text(512),
  encrypt_key: text(512),
  allow_dm: z.boolean(),
  allow_group_mention: z.boolean(),
  mention_required: z.boolean(),
  prefix_command: text(64),
  ignore_bot_messages: z.boolean(),
  rate_limit_per_minute: z.number().int().min(1).max(6000),
  allowed_chat_ids: idList,
  user_whitelist: idList,
  callback_url: callbackUrl,
};
export type ConnectorFieldName = keyof typeof fieldSchemas;

const camelCase = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** camelCase keys become snake_case unless the snake_case key is there too (it wins). */
function snakeCased(input: unknown, names: readonly string[]): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const out: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const name of names) {
    const camel = camelCase(name);
    if (camel !== name && out[name] === undefined && out[camel] !== undefined) out[name] = out[camel];
  }
  return out;
}

/** Every field optional: POST fills defaults, PATCH changes only what it names. Unknown keys are ignored. */
export const connectorFieldsBody = z.object(
  Object.fromEntries(Object.entries(fieldSchemas).map(([k, s]) => [k, s.optional()])) as { [K in ConnectorFieldName]: z.ZodOptional<(typeof fieldSchemas)[K]> },
);
export type ConnectorFieldsInput = z.output<typeof connectorFieldsBody>;
/** Every field, with its value: a connector's settings. */
export type ConnectorFields = Required<ConnectorFieldsInput>;

export const enableBody = z.object({ enabled: z.boolean() });

/** PATCH may name the version it was edited from: a newer row then answers 409 instead of being overwritten. */
export const expectedVersionBody = z.looseObject({ version: z.number().int().min(1).optional() });

export const testMessageBody = z.object({ target_chat_id: text(128).pipe(z.string().min(1)).optional(), text: z.string().trim().min(1).max(4000).optional() });

/**
 * A connector request body with camelCase keys renamed, before it is parsed (so a 400 names the
 * field in snake_case and finds its value).
 */
export function snakeCaseBody(body: unknown): unknown {
  return snakeCased(body, [...Object.keys(fieldSchemas), 'target_chat_id']);
}
export type TestMessageInput = z.output<typeof testMessageBody>;

export const logsQuery = z.object({
  cursor: z
    .string()
    .max(256)
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v)),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});
export type LogsQuery = z.output<typeof logsQuery>;

/** The connector as clients see it: secrets masked, `has_<secret>` saying whether one is set. */
export interface ConnectorView extends ConnectorFields {
  id: number;
  has_app_secret: boolean;
  has_verification_token: boolean;
  has_encrypt_key: boolean;
  state: ConnectorState;
  enabled: boolean;
  callback_verified: boolean;
  status: 'connected' | 'not_connected';
  last_verified_at: string | null;
  created_at: string | null;
  updated_at: string | null;
  /** Bumped by every change; a dashboard can tell a stale copy. */
  version: number;
  allowed_actions: ConnectorAction[];
  /** Whether this is the current connector (an older one stays readable by id). */
  is_current: boolean;
}

export interface ConnectorLogView {
  /** Decimal string (wire.md §1). */
  id: string;
  level: string;
  action: string;
  detail: string;
  trace_id?: string;
  timestamp: string;
}

/** First 2 and last 2 characters around a fixed run of stars; short secrets show nothing. */
export function maskSecret(secret: string): string {
  if (secret === '') return '';
  if (secret.length < 8) return '****';
  return `${secret.slice(0, 2)}****${secret.slice(-2)}`;
}
