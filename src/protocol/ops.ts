// Wire shapes of the older dashboards' ops panels (`/api/users/ops/...`): SSH keys, infra nodes and
// task records, as the older hub sent them, and the inputs they take. This hub keeps them as an
// inventory only: no ops executor runs here, so nothing connects to a node or runs a task.
import * as z from 'zod';

const timestamp = z.string().meta({ description: 'ISO 8601 UTC', example: '2026-11-21T10:00:00.123Z' });
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const line = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !CONTROL.test(v), 'must not contain control characters');
// Line breaks and tabs are text; other control characters are not (PostgreSQL cannot store NUL at all).
// eslint-disable-next-line no-control-regex
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !TEXT_CONTROL.test(v), 'must not contain control characters other than line breaks and tabs');
/** A host name, an address, or a user name: one word. */
const word = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((v) => !/\s/.test(v) && !CONTROL.test(v), 'must not contain spaces or control characters');

export const OPS_NO_EXECUTOR = 'this hub has no managed ops executor';

// The fields are read loosely (each optional), then the older hub's one sentence names what is
// missing; the documented schemas below mark what is required.
export const sshKeyFields = z.object({
  name: line(128).optional(),
  public_key: text(16_384).optional(),
  private_key: text(65_536).optional().meta({ description: 'OpenSSH or PEM, without a passphrase; stored encrypted, never returned' }),
});
export type SshKeyFields = z.output<typeof sshKeyFields>;
export const sshKeyCreateBody = sshKeyFields.required({ name: true, private_key: true });
export const sshKeyUpdateBody = sshKeyFields.required({ name: true }).extend({
  private_key: sshKeyFields.shape.private_key.meta({ description: 'a new private key; empty or absent keeps the stored one' }),
});

export const infraNodeFields = z.object({
  name: line(128).optional(),
  host: word(255).optional(),
  port: z.number().int().min(0).max(65_535).optional().meta({ description: '22 when absent or 0' }),
  ssh_user: word(64).optional(),
  ssh_key_id: z.number().int().max(Number.MAX_SAFE_INTEGER).optional(),
  description: line(2000).optional(),
});
export type InfraNodeFields = z.output<typeof infraNodeFields>;
export const infraNodeBody = infraNodeFields.required({ name: true, host: true, ssh_user: true, ssh_key_id: true }).extend({
  ssh_key_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
});

/** `GET /api/users/ops/tasks`: the older hub listed 10 by default and never more than 20. */
export const opsTasksQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .transform((n) => Math.min(n, 20))
    .meta({ description: 'newest records listed (10; more than 20 lists 20)' }),
});

/** `POST /api/dev/mock/ops-task`: a task record for the ops console, as the older seed script sends one. */
export const mockOpsTaskBody = z.object({
  task: line(256).pipe(z.string().min(1, 'is required')),
  reasoning: text(4096).default(''),
  success: z.boolean().default(true),
  summary: text(65_536).default(''),
  error: text(65_536).default(''),
  worker_mode: line(64).default(''),
  duration_ms: z
    .number()
    .int()
    .min(0)
    .max(7 * 24 * 3600 * 1000)
    .default(0),
});
export type MockOpsTask = z.output<typeof mockOpsTaskBody>;

export const sshKeyView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    public_key: z.string(),
    fingerprint: z.string().meta({ description: 'SHA256 fingerprint of the public key, as `ssh-keygen -l` prints it', example: 'SHA256:R1BjsXpf…' }),
    has_private_key: z.literal(true),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SSHKey' });
export type SshKeyView = z.infer<typeof sshKeyView>;

export const infraNodeView = z
  .object({
    id: z.number().int(),
    name: z.string(),
    host: z.string(),
    port: z.number().int(),
    ssh_user: z.string(),
    ssh_key_id: z.number().int(),
    description: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'InfraNode' });
export type InfraNodeView = z.infer<typeof infraNodeView>;

export const infraNodeTestView = z
  .object({
    node_id: z.number().int(),
    ok: z.literal(false),
    message: z.string(),
    round_trip_ms: z.literal(0),
    checked_at_utc: timestamp,
  })
  .meta({ id: 'InfraNodeTestResult' });
export type InfraNodeTestView = z.infer<typeof infraNodeTestView>;

export const opsTaskView = z
  .object({
    id: z.string().meta({ description: 'decimal string, as the older hub sent task ids as text' }),
    task: z.string(),
    reasoning: z.string(),
    status: z.enum(['completed', 'failed']),
    success: z.boolean(),
    summary: z.string(),
    error: z.string(),
    worker_mode: z.string(),
    started_at: timestamp,
    finished_at: timestamp,
    duration_ms: z.number().int(),
    updated_at: timestamp,
  })
  .meta({ id: 'OpsTask' });
export type OpsTaskView = z.infer<typeof opsTaskView>;

/** `GET /api/users/ops/status` as the older dashboards read it: no executor, and what the inventory holds. */
export const opsStatusBody = z
  .object({
    enabled: z.literal(false),
    worker_reachable: z.literal(false),
    worker_mode: z.literal(''),
    service_url: z.literal(''),
    managed_agent_id: z.literal(0),
    managed_agent_name: z.literal(''),
    node_count: z.number().int().min(0),
    ssh_key_count: z.number().int().min(0),
    message: z.string(),
  })
  .meta({ id: 'OpsStatus' });
export type OpsStatus = z.infer<typeof opsStatusBody>;
