// Message types and payload shapes shared by the HTTP ingest, the store and the WebSocket (the report
// types' payloads are in reports.ts).
import * as z from 'zod';

export const LogLevels = ['INFO', 'WARNING', 'ERROR', 'SUCCESS'] as const;
export type LogLevel = (typeof LogLevels)[number];

/** Dashboard telemetry: stored as messages, shown on dashboards, never sent to other agents. */
export const TelemetryTypes = ['SYSTEM_LOG', 'WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT'] as const;
export type TelemetryType = (typeof TelemetryTypes)[number];

/** Rows of a chat history (a conversation between two users). */
export const ChatRowTypes = ['CHAT', 'AUTH_REQUEST'] as const;
export type ChatRowType = (typeof ChatRowTypes)[number];

export const systemLogPayload = z.object({
  level: z.enum(LogLevels),
  content: z.string().max(65_536),
});
export type SystemLogPayload = z.infer<typeof systemLogPayload>;

/**
 * Fields the hub adds to the payload of a delivered telemetry frame (the row's id, the sender's
 * username as agent_id, its timestamp): the older v1 dashboard reads a live payload as a whole log row.
 */
export const DeliveredPayloadFields = ['id', 'agent_id', 'timestamp'] as const;
