// WebSocket frames (wire.md §5): what clients may send, validated with zod, and how the hub builds
// what it sends, whose shapes serverFrames.ts declares. Sender fields, timestamp and id of a client
// frame are ignored: they are the hub's.
import * as z from 'zod';
import { authResponseBody } from './butler.js';
import { memberOf } from './memberOf.js';
import { ReportTypes, systemLogPayload, TelemetryTypes, type ReportType, type TelemetryType } from './messages.js';
import { reportPayloads } from './reports.js';
import type { FrameErrorCode } from './errors.js';
import type { FrameOf, messageFrame, PresencePayload } from './serverFrames.js';

export const ChatTypes = ['CHAT', 'CHAT_STREAM', 'CHAT_STREAM_END'] as const;
export type ChatType = (typeof ChatTypes)[number];

export const ClientFrameTypes = [...ChatTypes, ...TelemetryTypes, 'AUTH_RESPONSE'] as const;
export type ClientFrameType = (typeof ClientFrameTypes)[number];

const positiveId = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// Ids chosen by clients: printable, so they can be stored and logged as they are.
const token = z
  .string()
  .min(1)
  .max(128)
  .refine((v) => !CONTROL.test(v), 'must not contain control characters');
/** Fields every client frame may carry besides its type and payload. */
const envelope = {
  local_id: token.optional(),
  target_id: positiveId.optional(),
  conversation_id: positiveId.optional(),
};

const chatFrame = z.object({ ...envelope, type: z.literal('CHAT'), payload: z.string(), stream_id: token.optional() });
const streamFrame = z.object({ ...envelope, type: z.literal('CHAT_STREAM'), payload: z.string(), stream_id: token });
// The end marker carries no text; older agents send "" or nothing.
const streamEndFrame = z.object({ ...envelope, type: z.literal('CHAT_STREAM_END'), payload: z.string().default(''), stream_id: token });
const systemLogFrame = z.object({ ...envelope, type: z.literal('SYSTEM_LOG'), payload: systemLogPayload });
const reportFrame = <T extends ReportType>(type: T) => z.object({ ...envelope, type: z.literal(type), payload: reportPayloads[type] });
const authResponseFrame = z.object({ ...envelope, type: z.literal('AUTH_RESPONSE'), payload: authResponseBody });

/** The query of `GET /api/ws`; the credential may come as an Authorization bearer header instead. */
export const wsUpgradeQuery = z.object({
  token: z.string().optional().meta({ description: 'JWT of a human or api_token of an agent' }),
  since: z
    .string()
    .regex(/^\d{1,16}$/, 'must be a message id (a whole number)')
    .optional()
    .meta({ description: 'resume: replay every stored frame for you with a greater id, then go live' }),
  presence: z
    .enum(['batched'])
    .optional()
    .meta({ description: 'batched: PRESENCE changes come as one PRESENCE_BATCH frame every 250 ms (the latest per agent) instead of one frame each' }),
});

export const clientFrame = z.discriminatedUnion('type', [
  chatFrame,
  streamFrame,
  streamEndFrame,
  systemLogFrame,
  reportFrame('WEATHER_UPDATE'),
  reportFrame('CODE_REVIEW'),
  reportFrame('SECURITY_ALERT'),
  authResponseFrame,
]);
export type ClientFrame = z.infer<typeof clientFrame>;
export type ChatFrame = Extract<ClientFrame, { type: ChatType }>;
export type TelemetryFrame = Extract<ClientFrame, { type: TelemetryType }>;
export type AuthResponseFrame = Extract<ClientFrame, { type: 'AUTH_RESPONSE' }>;

export const isChatType = memberOf(ChatTypes);
export const isTelemetryType = memberOf(TelemetryTypes);
export const isReportType = memberOf(ReportTypes);

/** The envelope the hub sends for a message (stored or relayed). */
export type MessageFrame = z.infer<typeof messageFrame>;

export function errorFrame(code: FrameErrorCode, message: string, localId?: string): string {
  const frame: FrameOf<'ERROR'> = { type: 'ERROR', payload: { code, message } };
  if (localId !== undefined) frame.local_id = localId;
  return JSON.stringify(frame);
}

export function ackFrame(localId: string, id: number, timestamp: string): string {
  const frame: FrameOf<'ACK'> = { type: 'ACK', local_id: localId, id, timestamp };
  return JSON.stringify(frame);
}

/**
 * PRESENCE frames gathered for a socket that asked for batches: the PRESENCE frames themselves, as
 * they were serialised once for every recipient, inside one envelope (no frame is parsed again).
 */
export function presenceBatchFrame(presenceTexts: readonly string[], timestamp: string): string {
  return `{"type":"PRESENCE_BATCH","payload":{"frames":[${presenceTexts.join(',')}]},"timestamp":${JSON.stringify(timestamp)}}`;
}

export function presenceFrame(payload: PresencePayload, timestamp: string): string {
  return JSON.stringify({ type: 'PRESENCE', sender_id: payload.user_id, sender_name: payload.username, sender_role: 'AGENT', payload, timestamp });
}

/** What a message frame is built from: a stored row (payload parsed) or a relayed chunk (no id). */
export interface FrameSource {
  id?: number;
  local_id: string | null;
  conversation_id: number | null;
  type: string;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  target_id: number | null;
  payload: unknown;
  created_at: string;
  stream_id: string | null;
}

/**
 * A stored telemetry payload as delivered: with the row's `id`, the sender's username as `agent_id`
 * and its `timestamp` beside `level` and `content`, because the older v1 dashboard takes a live
 * frame's payload as the whole log row (without an id it drops the row). Text payloads stay text.
 */
function telemetryPayload(m: FrameSource): unknown {
  if (m.id === undefined || !isTelemetryType(m.type) || m.payload === null || typeof m.payload !== 'object' || Array.isArray(m.payload)) return m.payload;
  return { ...m.payload, id: m.id, agent_id: m.sender_name, timestamp: m.created_at };
}

export function toMessageFrame(m: FrameSource): MessageFrame {
  const frame: MessageFrame = {
    type: m.type,
    sender_id: m.sender_id,
    sender_name: m.sender_name,
    sender_role: m.sender_role,
    payload: telemetryPayload(m),
    timestamp: m.created_at,
  };
  if (m.id !== undefined) frame.id = m.id;
  if (m.local_id !== null) frame.local_id = m.local_id;
  if (m.conversation_id !== null) frame.conversation_id = m.conversation_id;
  if (m.target_id !== null) frame.target_id = m.target_id;
  if (m.stream_id !== null) frame.stream_id = m.stream_id;
  return frame;
}

/** The admins' copy of a CHAT between Butler and an agent (wire.md §5 rule 4). */
export function monitorFrame(m: FrameSource): string {
  const agentId = m.sender_role === 'AGENT' ? m.sender_id : m.target_id;
  const payload: Record<string, unknown> = {
    agent_id: agentId,
    type: m.type,
    sender_id: m.sender_id,
    sender_role: m.sender_role,
    sender_name: m.sender_name,
    payload: m.payload,
    timestamp: m.created_at,
  };
  if (m.id !== undefined) payload['id'] = m.id;
  // Pairs a directive with the agent's answer, as the stored rows do.
  if (m.stream_id !== null) payload['stream_id'] = m.stream_id;
  const frame: Record<string, unknown> = {
    type: 'BUTLER_AGENT_MESSAGE',
    sender_id: m.sender_id,
    sender_name: m.sender_name,
    sender_role: m.sender_role,
    target_id: m.target_id,
    payload,
    timestamp: m.created_at,
  };
  if (m.id !== undefined) frame['id'] = m.id;
  if (m.conversation_id !== null) frame['conversation_id'] = m.conversation_id;
  return JSON.stringify(frame);
}
