// Developer mock endpoints: admin only, and refused in production.
import { mockChatBody, usernameParams } from '../../protocol/http.js';
import type { AgentsService } from '../../services/agents.js';
import type { DevMockService } from '../../services/devMock.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

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

  app.get(
    '/api/dev/mock/agent-token/:username',
    ...access.adminNonProduction,
    route(async (req, res) => {
      const { username } = parseWith(usernameParams, req.params);
      res.json(await agents.rawToken(username));
    }),
  );
}
