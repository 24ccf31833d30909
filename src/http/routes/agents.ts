// Machine users under /api/users/agents and Butler's profile. Mounted before /api/users/:id.
import { z } from 'zod';
import { idParams, listAgentsQuery, registerAgentBody, rotateTokenBody, testConnectionBody } from '../../protocol/http.js';
import { agentSkill, updateAgentCardBody } from '../../protocol/a2a.js';
import { agentWithToken, okBody, presenceView, rotatedToken, testConnectionResult, userView } from '../../protocol/responses.js';
import type { AgentsService } from '../../services/agents.js';
import { agentCounts } from '../../protocol/stats.js';
import { routeGroup } from '../route.js';

export interface AgentDeps {
  agents: Pick<AgentsService, 'list' | 'counts' | 'statusList' | 'butler' | 'register' | 'testConnection' | 'rotateToken' | 'delete' | 'updateCard'>;
}

const route = routeGroup<AgentDeps>('agents');

export const agentRoutes = [
  route({
    method: 'GET',
    path: '/api/users/agents',
    access: 'authenticated',
    summary: 'Agents and Butler with presence and token hints (never tokens); searched, filtered and paged on the hub',
    description:
      'Without parameters: the first 1000 by id, as the older dashboards read it. `q` matches part of the username (any case), ' +
      '`status` a presence status (Butler is left out), `kind` an agent_kind exactly, `id` one agent by id; `page` and `limit` page the result.',
    query: listAgentsQuery,
    responses: { 200: { description: 'the page of agents', schema: z.array(userView), headers: { 'X-Total-Count': 'matching agents before paging' } } },
    handler: async ({ query, res }, { agents }) => {
      const { items, total } = await agents.list({
        excludeRole: query.exclude_role,
        q: query.q,
        status: query.status,
        kind: query.kind,
        id: query.id,
        page: query.page,
        limit: query.limit,
      });
      res.setHeader('X-Total-Count', String(total));
      return items;
    },
  }),
  route({
    method: 'GET',
    path: '/api/users/agents/counts',
    access: 'authenticated',
    summary: 'Agents counted by presence and by kind (Butler not counted); what a roster shows without reading it',
    responses: { 200: { description: 'the counts', schema: agentCounts } },
    handler: (_input, { agents }) => agents.counts(),
  }),
  route({
    method: 'GET',
    path: '/api/users/agents/status',
    access: 'authenticated',
    summary: 'Presence of every user with role AGENT',
    responses: { 200: { description: 'presence entries', schema: z.array(presenceView) } },
    handler: (_input, { agents }) => agents.statusList(),
  }),
  route({
    method: 'GET',
    path: '/api/users/butler',
    access: 'authenticated',
    summary: 'Butler, ONLINE while the hub runs',
    responses: { 200: { description: 'Butler', schema: userView } },
    handler: (_input, { agents }) => agents.butler(),
  }),
  route({
    method: 'POST',
    path: '/api/users/agents',
    access: 'admin',
    summary: 'Register an agent; the answer carries its api_token, shown this once',
    body: registerAgentBody,
    responses: { 201: { description: 'the agent with its api_token', schema: agentWithToken } },
    errors: { 409: 'username already exists, or the api_token is in use' },
    handler: ({ body }, { agents }) => agents.register(body),
  }),
  route({
    method: 'POST',
    path: '/api/users/agents/test-connection',
    access: 'admin',
    summary: 'Whether an api_token belongs to an agent (Butler has none)',
    body: testConnectionBody,
    responses: { 200: { description: 'ok with the agent, or ok:false', schema: testConnectionResult } },
    handler: ({ body }, { agents }) => agents.testConnection(body.api_token),
  }),
  route({
    method: 'PATCH',
    path: '/api/users/agents/:id/token',
    access: 'admin',
    summary: "Rotate an agent's api_token (generated when absent); its open sockets close with 4001",
    params: idParams,
    body: rotateTokenBody,
    responses: { 200: { description: 'the new token', schema: rotatedToken } },
    errors: { 403: 'Butler runs inside the hub and has no api_token', 404: 'no such agent', 409: 'the api_token is in use' },
    handler: ({ params, body }, { agents }) => agents.rotateToken(params.id, body.api_token),
  }),
  route({
    method: 'PATCH',
    path: '/api/users/agents/:id/card',
    access: 'admin',
    summary: "Change the description and skills of an agent's A2A card (null clears one)",
    params: idParams,
    body: updateAgentCardBody,
    responses: {
      200: {
        description: "the agent's card fields",
        schema: z.object({ id: z.number(), username: z.string(), description: z.string().nullable(), skills: z.array(agentSkill) }),
      },
    },
    errors: { 403: "Butler's card is the hub's own", 404: 'no such agent' },
    handler: ({ params, body }, { agents }) => agents.updateCard(params.id, body),
  }),
  route({
    method: 'DELETE',
    path: '/api/users/agents/:id',
    access: 'admin',
    summary: 'Delete an agent (not Butler); its open sockets close with 4001',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 403: 'Butler cannot be deleted', 404: 'no such agent' },
    handler: async ({ params }, { agents }) => {
      await agents.delete(params.id);
      return { ok: true };
    },
  }),
];
