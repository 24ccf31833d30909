// Zod schemas of every HTTP request body and query (wire.md §3). Route handlers get typed values
// only after these pass; failures become one readable 400 naming the field.
import * as z from 'zod';
import { agentSkills } from './a2a.js';
import { ChatRowTypes, LogLevels, TelemetryTypes } from './messages.js';
import { HumanRoles, MachineRoles, Roles } from './roles.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export const username = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine((v) => !CONTROL.test(v), 'must not contain control characters');
export const password = z.string().min(8).max(1024);
export const apiToken = z
  .string()
  .min(16)
  .max(256)
  .refine((v) => /^[\x21-\x7e]+$/.test(v), 'must be printable ASCII without spaces');
const shortText = (max: number) => z.string().trim().max(max);

/** A positive integer from a path or query string. */
export const id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const pageNumber = z.coerce.number().int().min(1).max(1_000_000).default(1);
const limitOf = (fallback: number, max: number) => z.coerce.number().int().min(1).max(max).default(fallback);
/** Query strings arrive as text; an empty value counts as absent. */
const optionalQueryText = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : v));
const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);

export const idParams = z.object({ id });

// No trimming at login (a name is matched exactly), but control characters can never be part of one.
export const loginBody = z.object({
  username: z
    .string()
    .min(1)
    .max(64)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters'),
  password: z.string().min(1).max(1024),
});
export const registerBody = z.object({ username, password });

export const createUserBody = z.object({
  username,
  password: password.optional(),
  role: z.enum(HumanRoles).default('MEMBER'),
});
export const updateUserBody = z.object({ role: z.enum(HumanRoles).optional(), password: password.optional() });
export const listUsersQuery = z.object({
  role: z.preprocess(emptyAsAbsent, z.enum(Roles).optional()),
  q: optionalQueryText(64),
  page: pageNumber,
  limit: limitOf(100, 1000),
});

/** The runtime kind of an agent registered by its A2A card URL (the hub proxies it). */
export const A2A_RUNTIME_KIND = 'a2a';

export const registerAgentBody = z
  .object({
    username,
    api_token: apiToken.optional(),
    agent_kind: shortText(64).optional(),
    runtime_kind: shortText(64).optional(),
    description: shortText(1024).optional(),
    /** The skills its A2A card lists. */
    skills: agentSkills.optional(),
    /** runtime_kind "a2a": where the remote agent's card is. */
    card_url: z.string().trim().min(1).max(2048).optional(),
    /** runtime_kind "a2a": the bearer credential the hub sends the remote agent (kept encrypted, never shown). */
    credential: z
      .string()
      .min(1)
      .max(4096)
      .refine((v) => !/[\r\n]/.test(v), 'must be one line')
      .optional(),
  })
  .superRefine((body, ctx) => {
    const remote = body.runtime_kind === A2A_RUNTIME_KIND;
    if (remote && body.card_url === undefined)
      ctx.addIssue({ code: 'custom', path: ['card_url'], message: 'is required when runtime_kind is "a2a" (the URL of the agent\'s A2A card)' });
    if (!remote && body.card_url !== undefined)
      ctx.addIssue({ code: 'custom', path: ['card_url'], message: 'is only for runtime_kind "a2a" (an agent registered by its A2A card)' });
    if (!remote && body.credential !== undefined)
      ctx.addIssue({ code: 'custom', path: ['credential'], message: 'is only for runtime_kind "a2a" (sent to the remote agent)' });
    if (remote && body.api_token !== undefined)
      ctx.addIssue({ code: 'custom', path: ['api_token'], message: 'is not for runtime_kind "a2a": the hub calls a remote agent, it never connects' });
  });
/** A presence status as stored (`ONLINE`, `OFFLINE` or a richer one an agent reports), any case. */
const presenceStatus = z
  .string()
  .regex(/^[A-Za-z_]{1,32}$/, 'must be a presence status such as ONLINE or OFFLINE (letters and _)')
  .transform((v) => v.toUpperCase());
export const listAgentsQuery = z.object({
  exclude_role: z.preprocess(emptyAsAbsent, z.enum(MachineRoles).optional()),
  /** Substring of the username, any case. */
  q: optionalQueryText(64),
  /** Only agents with this presence status (Butler, always ONLINE, is left out by any status filter). */
  status: z.preprocess(emptyAsAbsent, presenceStatus.optional()),
  /** Only agents of this `agent_kind`, exactly. */
  kind: optionalQueryText(64),
  /** Only the agent (or Butler) with this id: a page of one or none, for a page that names one agent. */
  id: z.preprocess(emptyAsAbsent, id.optional()),
  page: pageNumber,
  limit: limitOf(1000, 1000),
});
export const testConnectionBody = z.object({ api_token: z.string().min(1).max(256) });
export const rotateTokenBody = z.object({ api_token: apiToken.optional() });

/** `POST /api/messages` in the older dashboards' form. */
export const legacyMessageBody = z.object({
  agent_id: username.optional(),
  level: z.enum(LogLevels),
  content: z.string().min(1).max(65_536),
});
/** `POST /api/messages` in the typed form; the payload is checked per type afterwards. */
export const typedMessageBody = z.object({
  type: z.enum(TelemetryTypes),
  payload: z.unknown(),
  target_id: id.optional(),
  agent_id: username.optional(),
});
export const listMessagesQuery = z.object({
  agent_id: optionalQueryText(64),
  level: z.preprocess(emptyAsAbsent, z.enum(LogLevels).optional()),
  type: z.preprocess(emptyAsAbsent, z.enum(TelemetryTypes).optional()),
  q: optionalQueryText(200),
  before_id: z.preprocess(emptyAsAbsent, id.optional()),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: limitOf(50, 200),
});

export const mockChatBody = z.object({
  sender_username: username,
  receiver_username: username,
  content: z.string().min(1).max(65_536),
  conversation_id: id.optional(),
  type: z.enum(ChatRowTypes).default('CHAT'),
  local_id: z.string().min(1).max(128).optional(),
});
export const usernameParams = z.object({ username });

/** `POST /api/dev/mock/feishu-log`; the older seed script writes levels in lower case. */
export const mockConnectorLogBody = z.object({
  level: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), z.enum(LogLevels)),
  action: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters'),
  detail: z.string().trim().min(1).max(4000),
});
