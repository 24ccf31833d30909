// Machine users under /api/users/agents and Butler's profile. Registered before /api/users/:id.
import { z } from 'zod';
import { idParams, listAgentsQuery, registerAgentBody, rotateTokenBody, testConnectionBody } from '../../protocol/http.js';
import { agentWithToken, okBody, presenceView, rotatedToken, testConnectionResult, userView } from '../../protocol/responses.js';
import type { AgentsService } from '../../services/agents.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseBody, parseWith } from '../validate.js';

const TOTAL = { 'X-Total-Count': 'matching agents before paging' };

export const agentRouteDocs = routeDocs('agents', {
  'GET /api/users/agents': {
    access: 'authenticated',
    summary: 'Agents and Butler with presence and token hints (never tokens)',
    query: listAgentsQuery,
    responses: { 200: { description: 'the page of agents', schema: z.array(userView), headers: TOTAL } },
  },
  'GET /api/users/agents/status': {
    access: 'authenticated',
    summary: 'Presence of every user with role AGENT',
    responses: { 200: { description: 'presence entries', schema: z.array(presenceView) } },
  },
  'GET /api/users/butler': {
    access: 'authenticated',
    summary: 'Butler, ONLINE while the hub runs',
    responses: { 200: { description: 'Butler', schema: userView } },
  },
  'POST /api/users/agents': {
    access: 'admin',
    summary: 'Register an agent; the answer carries its api_token, shown this once',
    body: registerAgentBody,
    responses: { 201: { description: 'the agent with its api_token', schema: agentWithToken } },
    errors: { 409: 'username already exists, or the api_token is in use' },
  },
  'POST /api/users/agents/test-connection': {
    access: 'admin',
    summary: 'Whether an api_token belongs to an agent (Butler has none)',
    body: testConnectionBody,
    responses: { 200: { description: 'ok with the agent, or ok:false', schema: testConnectionResult } },
  },
  'PATCH /api/users/agents/:id/token': {
    access: 'admin',
    summary: "Rotate an agent's api_token (generated when absent); its open sockets close with 4001",
    params: idParams,
    body: rotateTokenBody,
    responses: { 200: { description: 'the new token', schema: rotatedToken } },
    errors: { 403: 'Butler runs inside the hub and has no api_token', 404: 'no such agent', 409: 'the api_token is in use' },
  },
  'DELETE /api/users/agents/:id': {
    access: 'admin',
    summary: 'Delete an agent (not Butler); its open sockets close with 4001',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 403: 'Butler cannot be deleted', 404: 'no such agent' },
  },
});

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
