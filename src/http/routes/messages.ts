// Dashboard messages: query with filters and paging, and ingest in either wire form.
import { z } from 'zod';
import { systemLogPayload } from '../../protocol/messages.js';
import { reportPayloads } from '../../protocol/reports.js';
import { legacyMessageBody, listMessagesQuery, typedMessageBody } from '../../protocol/http.js';
import type { IngestInput, MessagesService } from '../../services/messages.js';
import type { Access } from '../auth.js';
import { callerOf, route, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

// Payloads are parsed under their field name, so errors read `payload.level is required`.
const payloadFields = {
  SYSTEM_LOG: z.object({ payload: systemLogPayload }),
  WEATHER_UPDATE: z.object({ payload: reportPayloads.WEATHER_UPDATE }),
  CODE_REVIEW: z.object({ payload: reportPayloads.CODE_REVIEW }),
  SECURITY_ALERT: z.object({ payload: reportPayloads.SECURITY_ALERT }),
} as const;

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

export function messageRoutes(app: Routes, deps: { access: Access; messages: MessagesService }): void {
  const { access, messages } = deps;

  app.get(
    '/api/messages',
    ...access.authenticated,
    route(async (req, res) => {
      const query = parseWith(listMessagesQuery, req.query);
      const { items, total } = await messages.list(callerOf(res), query);
      res.setHeader('X-Total-Count', String(total));
      res.json(items);
    }),
  );

  app.post(
    '/api/messages',
    ...access.authenticated,
    route(async (req, res) => {
      res.status(201).json(await messages.ingest(callerOf(res), toIngestInput(req.body)));
    }),
  );
}
