// Zod schemas of the frames the hub sends (wire.md §5): the one declaration of their shapes. The typed
// client validates every incoming frame with them, and the hub's frame builders (frames.ts) take their
// types from them. Message payloads use the very schemas the hub applies to what clients send, so a
// client and the hub agree on every shape. Browser-safe: zod and protocol files only.
import * as z from 'zod';
import { DeliveredPayloadFields, systemLogPayload } from './messages.js';
import { reportPayloads } from './reports.js';

const id = z.number().int().min(1);

/** The envelope of every message frame; the hub fills in the sender fields, the timestamp and the id. */
export const messageFrame = z.object({
  id: id.optional(),
  local_id: z.string().optional(),
  conversation_id: id.optional(),
  sender_id: id,
  sender_name: z.string(),
  sender_role: z.string(),
  target_id: id.optional(),
  timestamp: z.string(),
  stream_id: z.string().optional(),
  type: z.string(),
  payload: z.unknown(),
});

/** One message type: the envelope with its type fixed and its payload's schema. */
const message = <T extends string, P extends z.ZodType>(type: T, payload: P) => messageFrame.extend({ type: z.literal(type), payload });

/** A delivered telemetry payload, read with the schema agents send it with once the hub's additions are set aside. */
const delivered = <P extends z.ZodType>(payload: P) =>
  z.preprocess((value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => !(DeliveredPayloadFields as readonly string[]).includes(key)));
  }, payload);

export const presencePayload = z.object({
  user_id: id,
  username: z.string(),
  status: z.string(),
  online: z.boolean(),
  last_seen_at: z.string().nullable(),
  last_report: z.string().nullable(),
});
export type PresencePayload = z.infer<typeof presencePayload>;

/** Butler asks a human to approve a command for an agent. */
export const authRequestPayload = z.looseObject({
  action_id: z.string(),
  target_agent_id: id.optional(),
  target_agent_name: z.string().optional(),
  command: z.string().optional(),
  reason: z.string().optional(),
  status: z.string(),
});

/** The admins' copy of a CHAT between Butler and an agent. */
export const monitorPayload = z.object({
  agent_id: id.nullable(),
  type: z.string(),
  sender_id: id,
  sender_role: z.string(),
  sender_name: z.string(),
  payload: z.unknown(),
  timestamp: z.string(),
  id: id.optional(),
  /** A directive's stream_id, carried by the agent's answer too. */
  stream_id: z.string().optional(),
});

export const serverFrame = z.discriminatedUnion('type', [
  message('CHAT', z.string()),
  message('CHAT_STREAM', z.string()),
  message('CHAT_STREAM_END', z.string()),
  message('SYSTEM_LOG', delivered(systemLogPayload)),
  message('WEATHER_UPDATE', delivered(reportPayloads.WEATHER_UPDATE)),
  message('CODE_REVIEW', delivered(reportPayloads.CODE_REVIEW)),
  message('SECURITY_ALERT', delivered(reportPayloads.SECURITY_ALERT)),
  message('AUTH_REQUEST', authRequestPayload),
  message('AUTH_STATUS_UPDATE', z.looseObject({ action_id: z.string(), status: z.string() })),
  z.object({ type: z.literal('ACK'), local_id: z.string(), id, timestamp: z.string() }),
  // `code` stays an open string: a newer hub may add codes, and a client must still show the message.
  z.object({ type: z.literal('ERROR'), payload: z.object({ code: z.string(), message: z.string() }), local_id: z.string().optional() }),
  message('PRESENCE', presencePayload),
  message('BUTLER_AGENT_MESSAGE', monitorPayload),
  // To a socket opened with `presence=batched`: the PRESENCE frames of the last 250 ms, the latest per agent, oldest first.
  z.object({ type: z.literal('PRESENCE_BATCH'), payload: z.object({ frames: z.array(message('PRESENCE', presencePayload)) }), timestamp: z.string() }),
]);
export type ServerFrame = z.infer<typeof serverFrame>;
export type ServerFrameType = ServerFrame['type'];
/** Every type the hub sends, in the order above (the label values of the outbound frame counters). */
export const ServerFrameTypes: readonly ServerFrameType[] = serverFrame.options.map((o) => o.shape.type.value);

export type FrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;
/** A frame that carries a message (everything but ACK, ERROR and PRESENCE_BATCH). */
export type MessageFrameIn = Exclude<ServerFrame, { type: 'ACK' | 'ERROR' | 'PRESENCE_BATCH' }>;
export type ChatFrameIn = FrameOf<'CHAT'>;
