// Message types and payload shapes shared by the HTTP ingest, the store and the WebSocket (the report
// types' payloads are in reports.ts). Each set of types is declared here once; the hub, the client and
// the dashboard (through the client) import it.
import * as z from 'zod';
import { memberOf } from './memberOf.js';

export const LogLevels = ['INFO', 'WARNING', 'ERROR', 'SUCCESS'] as const;
export type LogLevel = (typeof LogLevels)[number];
export const isLogLevel = memberOf(LogLevels);

/** The agents' typed reports (payloads in reports.ts). */
export const ReportTypes = ['WEATHER_UPDATE', 'CODE_REVIEW', 'SECURITY_ALERT'] as const;
export type ReportType = (typeof ReportTypes)[number];

/** Dashboard telemetry: stored as messages, shown on dashboards, never sent to other agents. */
export const TelemetryTypes = ['SYSTEM_LOG', ...ReportTypes] as const;
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
