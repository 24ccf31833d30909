// Dashboard messages: query with filters and paging, and ingest in either wire form.
import { z } from 'zod';
import { systemLogPayload, TelemetryTypes, type TelemetryType } from '../../protocol/messages.js';
import { reportPayloads } from '../../protocol/reports.js';
import { legacyMessageBody, listMessagesQuery, typedMessageBody } from '../../protocol/http.js';
import { messageView } from '../../protocol/responses.js';
import type { IngestInput, MessagesService } from '../../services/messages.js';
import { TOTAL_COUNT_CAP } from '../../store/repositories/messages.js';
import { inputReader, routeGroup } from '../route.js';
import { parseBody, parseWith } from '../validate.js';

export interface MessageDeps {
  messages: Pick<MessagesService, 'list' | 'ingest'>;
}

const payloadSchemas: Record<TelemetryType, z.ZodType> = { SYSTEM_LOG: systemLogPayload, ...reportPayloads };
// Payloads are parsed under their field name, so errors read `payload.level is required`.
const payloadFields = Object.fromEntries(TelemetryTypes.map((type) => [type, z.object({ payload: payloadSchemas[type] })])) as Record<
  TelemetryType,
  z.ZodObject<{ payload: z.ZodType }>
>;

/** `{type, payload, ...}` is the typed form; anything else is read as `{agent_id, level, content}`. */
function toIngestInput(body: unknown): IngestInput {
  if (body && typeof body === 'object' && 'type' in body) {
    const typed = parseBody(typedMessageBody, body);
    const { payload } = parseWith(payloadFields[typed.type], { payload: typed.payload });
    return { type: typed.type, payload, target_id: typed.target_id, agent_id: typed.agent_id };
  }
  const legacy = parseBody(legacyMessageBody, body);
  return { type: 'SYSTEM_LOG', payload: { level: legacy.level, content: legacy.content }, agent_id: legacy.agent_id };
}

const route = routeGroup<MessageDeps>('messages');

export const messageRoutes = [
  route({
    method: 'GET',
    path: '/api/messages',
    access: 'authenticated',
    summary: 'Dashboard messages, newest first',
    query: listMessagesQuery,
    heavyRead: true,
    responses: {
      200: {
        description: 'the page',
        schema: z.array(messageView),
        headers: {
          'X-Total-Count': `matching messages before paging, counted up to ${TOTAL_COUNT_CAP.toLocaleString('en')}`,
          'X-Total-Count-Capped': '`true` when more messages match than X-Total-Count says (it is then a lower bound); absent otherwise',
        },
      },
    },
    handler: async ({ query, caller, res }, { messages }) => {
      const { items, total, capped } = await messages.list(caller, query);
      res.setHeader('X-Total-Count', String(total));
      if (capped) res.setHeader('X-Total-Count-Capped', 'true');
      return items;
    },
  }),
  route({
    method: 'POST',
    path: '/api/messages',
    access: 'authenticated',
    summary: 'Ingest a dashboard message; it is stored, then delivered over the WebSocket like any telemetry',
    description: 'Two forms: `{agent_id?, level, content}` (a SYSTEM_LOG) or `{type, payload, target_id?, agent_id?}`.',
    body: inputReader(z.union([typedMessageBody, legacyMessageBody]), toIngestInput),
    responses: { 201: { description: 'the stored message', schema: messageView } },
    errors: { 403: 'only admins may post on behalf of another user (agent_id), and nobody as Butler', 404: 'no such target or agent' },
    handler: ({ body, caller }, { messages }) => messages.ingest(caller, body),
  }),
];
