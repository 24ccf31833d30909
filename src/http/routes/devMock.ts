// Developer mock endpoints: admin only, and refused in production.
import { z } from 'zod';
import { mockChatBody, mockConnectorLogBody, usernameParams } from '../../protocol/http.js';
import { okBody, rawAgentToken } from '../../protocol/responses.js';
import type { AgentsService } from '../../services/agents.js';
import type { DevMockService } from '../../services/devMock.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseBody, parseWith } from '../validate.js';

const rowId = z.object({ id: z.number().int() });

export const devMockRouteDocs = routeDocs('dev', {
  'POST /api/dev/mock/reset': {
    access: 'admin-non-production',
    summary: 'Back to the bootstrap state: the admin (id 1) and Butler (id 2)',
    responses: { 200: { description: 'reset', schema: z.object({ status: z.literal('reset') }) } },
  },
  'POST /api/dev/mock/chat': {
    access: 'admin-non-production',
    summary: 'Insert a chat row',
    body: mockChatBody,
    responses: {
      201: { description: 'the new row', schema: rowId },
      200: { description: 'a repeated local_id: the row it already made', schema: rowId },
    },
    errors: {
      403: 'the content starts with [DIRECTIVE]: only Butler sends directives, and only from inside the hub',
      404: 'no such sender or receiver',
    },
  },
  'POST /api/dev/mock/feishu-log': {
    access: 'admin-non-production',
    summary: "Append an entry to the current connector's log (the older seed script's call); level in any case",
    body: mockConnectorLogBody,
    responses: { 201: { description: 'appended', schema: okBody } },
    errors: { 404: 'no connector yet' },
  },
  'GET /api/dev/mock/agent-token/:username': {
    access: 'admin-non-production',
    summary: "An agent's raw api_token, for local bootstrap scripts",
    params: usernameParams,
    responses: { 200: { description: 'the token', schema: rawAgentToken } },
    errors: { 403: 'Butler runs inside the hub and has no api_token', 404: 'no such agent' },
  },
});

export function devMockRoutes(app: Routes, deps: { access: Access; devMock: DevMockService; agents: AgentsService }): void {
  const { access, devMock, agents } = deps;

  app.post(
    '/api/dev/mock/reset',
    ...access.adminNonProduction,
    route(async (_req, res) => {
      await devMock.reset();
      res.json({ status: 'reset' });
    }),
  );

  app.post(
    '/api/dev/mock/chat',
    ...access.adminNonProduction,
    route(async (req, res) => {
      const { id, duplicate } = await devMock.insertChat(parseBody(mockChatBody, req.body));
      // A repeated local_id is stored once; the answer names the row it already made.
      res.status(duplicate ? 200 : 201).json({ id });
    }),
  );

  app.post(
    '/api/dev/mock/feishu-log',
    ...access.adminNonProduction,
    route(async (req, res) => {
      await devMock.appendConnectorLog(parseBody(mockConnectorLogBody, req.body));
      res.status(201).json({ ok: true });
    }),
  );

  app.get(
    '/api/dev/mock/agent-token/:username',
    ...access.adminNonProduction,
    route(async (req, res) => {
      const { username } = parseWith(usernameParams, req.params);
      res.json(await agents.rawToken(username));
    }),
  );
}
