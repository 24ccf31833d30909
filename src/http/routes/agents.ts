// Machine users under /api/users/agents and Butler's profile. Registered before /api/users/:id.
import { idParams, listAgentsQuery, registerAgentBody, rotateTokenBody, testConnectionBody } from '../../protocol/http.js';
import type { AgentsService } from '../../services/agents.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

export function agentRoutes(app: Routes, deps: { access: Access; agents: AgentsService }): void {
  const { access, agents } = deps;

  app.get(
    '/api/users/agents',
    ...access.authenticated,
    route(async (req, res) => {
      const query = parseWith(listAgentsQuery, req.query);
      const { items, total } = await agents.list({ excludeRole: query.exclude_role, q: query.q, page: query.page, limit: query.limit });
      res.setHeader('X-Total-Count', String(total));
      res.json(items);
    }),
  );

  app.get(
    '/api/users/agents/status',
    ...access.authenticated,
    route(async (_req, res) => {
      res.json(await agents.statusList());
    }),
  );

  app.get(
    '/api/users/butler',
    ...access.authenticated,
    route(async (_req, res) => {
      res.json(await agents.butler());
    }),
  );

  app.post(
    '/api/users/agents',
    ...access.admin,
    route(async (req, res) => {
      res.status(201).json(await agents.register(parseBody(registerAgentBody, req.body)));
    }),
  );

  app.post(
    '/api/users/agents/test-connection',
    ...access.admin,
    route(async (req, res) => {
      res.json(await agents.testConnection(parseBody(testConnectionBody, req.body).api_token));
    }),
  );

  app.patch(
    '/api/users/agents/:id/token',
    ...access.admin,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      const body = parseBody(rotateTokenBody, req.body);
      res.json(await agents.rotateToken(id, body.api_token));
    }),
  );

  app.delete(
    '/api/users/agents/:id',
    ...access.admin,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      await agents.delete(id);
      res.json({ ok: true });
    }),
  );
}
