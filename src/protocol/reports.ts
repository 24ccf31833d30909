// Payloads of the agent report types WEATHER_UPDATE, CODE_REVIEW and SECURITY_ALERT (hub-spec §1 leaves
// them open; these are ours). Each is a JSON object of the shape below, or, for agents written for the
// older hub, plain text. Objects are strict: a misspelt field is refused by name, not stored unread.
// `content` is the one line a dashboard shows; the hub indexes it for `GET /api/messages?q=`.
import * as z from 'zod';
import type { ReportType } from './messages.js';

const MAX_TEXT = 65_536;
const MAX_FINDINGS = 1000;
const line = (max: number) => z.string().min(1).max(max);
const lineNumber = z.number().int().min(1);

/** Current weather at one place, as a weather agent observed it. */
export const weatherUpdatePayload = z.strictObject({
  location: line(200),
  temperature_c: z.number(),
  feels_like_c: z.number().optional(),
  conditions: z.string().max(200).optional(),
  humidity_pct: z.number().min(0).max(100).optional(),
  wind_speed_ms: z.number().min(0).optional(),
  /** When the weather service measured it (ISO 8601). */
  observed_at: z.iso.datetime({ offset: true }).optional(),
  /** Which service it came from. */
  source: z.string().max(200).optional(),
  content: z.string().max(4096).optional(),
});
export type WeatherUpdatePayload = z.infer<typeof weatherUpdatePayload>;

export const ReviewVerdicts = ['approve', 'comment', 'request_changes'] as const;
export const ReviewSeverities = ['info', 'warning', 'error'] as const;
export type ReviewSeverity = (typeof ReviewSeverities)[number];

export const reviewFinding = z.strictObject({
  file: line(1024),
  /** Line in the new version of the file. */
  line: lineNumber.optional(),
  severity: z.enum(ReviewSeverities),
  /** Which check found it (`no-console`, `model`, ...). */
  rule: line(100),
  message: line(2000),
});
export type ReviewFinding = z.infer<typeof reviewFinding>;

/** The review of one unified diff. */
export const codeReviewPayload = z.strictObject({
  verdict: z.enum(ReviewVerdicts),
  content: line(4096),
  files_reviewed: z.number().int().min(0).optional(),
  findings: z.array(reviewFinding).max(MAX_FINDINGS).optional(),
  /** The language model that took part, when one did. */
  model: z.string().max(200).optional(),
});
export type CodeReviewPayload = z.infer<typeof codeReviewPayload>;

export const AlertSeverities = ['low', 'medium', 'high', 'critical'] as const;
export type AlertSeverity = (typeof AlertSeverities)[number];

const secretFinding = z.strictObject({
  kind: z.literal('secret'),
  severity: z.enum(AlertSeverities),
  rule: line(100),
  file: line(1024),
  line: lineNumber.optional(),
  /** The matched text with the secret itself masked: never the secret. */
  excerpt: z.string().max(400).optional(),
});
const dependencyFinding = z.strictObject({
  kind: z.literal('vulnerable_dependency'),
  severity: z.enum(AlertSeverities),
  /** The lockfile that pins it. */
  file: line(1024),
  package: line(214),
  version: line(100),
  advisory: line(100),
  title: z.string().max(500).optional(),
  fixed_in: z.string().max(100).optional(),
});
export const securityFinding = z.discriminatedUnion('kind', [secretFinding, dependencyFinding]);
export type SecurityFinding = z.infer<typeof securityFinding>;

/** What a security audit found; `severity` is the highest among its findings. */
export const securityAlertPayload = z.strictObject({
  severity: z.enum(AlertSeverities),
  content: line(4096),
  /** What was scanned. */
  path: z.string().max(1024).optional(),
  findings: z.array(securityFinding).max(MAX_FINDINGS).optional(),
});
export type SecurityAlertPayload = z.infer<typeof securityAlertPayload>;

/**
 * A report payload: an object of `schema`'s shape, or text. Chosen by the value's own type so a
 * refusal names the field that is wrong (`payload.location is required`) instead of "no union member".
 */
function objectOrText<S extends z.ZodType>(schema: S) {
  return z.unknown().transform((value, ctx): z.output<S> | string => {
    if (typeof value === 'string') {
      if (value.length > MAX_TEXT) ctx.addIssue({ code: 'too_big', origin: 'string', maximum: MAX_TEXT, inclusive: true, input: value, message: 'too long' });
      return value;
    }
    if (value === undefined || value === null) {
      ctx.addIssue({ code: 'invalid_type', expected: 'object', input: value, message: 'payload is required' });
      return z.NEVER;
    }
    if (typeof value !== 'object' || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', input: value, message: 'must be a JSON object or a string' });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    // The nested issues keep their codes and paths; zod prefixes the paths with `payload`.
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, input: undefined } as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  });
}

/** Payload schema per report type, for frames and for `POST /api/messages`. */
export const reportPayloads = {
  WEATHER_UPDATE: objectOrText(weatherUpdatePayload),
  CODE_REVIEW: objectOrText(codeReviewPayload),
  SECURITY_ALERT: objectOrText(securityAlertPayload),
} as const satisfies Record<ReportType, z.ZodType>;

/** Each report type's payload as an object (agents may also send it as text). */
export type ReportPayloads = { [T in ReportType]: Exclude<z.output<(typeof reportPayloads)[T]>, string> };
