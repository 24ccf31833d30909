// Developer mock endpoints: admin only, and refused in production.
import { z } from 'zod';
import { mockChatBody, mockConnectorLogBody, usernameParams } from '../../protocol/http.js';
import { mockOpsTaskBody } from '../../protocol/ops.js';
import { okBody, rawAgentToken } from '../../protocol/responses.js';
import type { AgentsService } from '../../services/agents.js';
import type { DevMockService } from '../../services/devMock.js';
import type { OpsInventoryService } from '../../services/opsInventory.js';
import { routeGroup } from '../route.js';

export interface DevMockDeps {
  devMock: Pick<DevMockService, 'reset' | 'insertChat' | 'appendConnectorLog'>;
  agents: Pick<AgentsService, 'rawToken'>;
  ops: Pick<OpsInventoryService, 'recordTask'>;
}

const rowId = z.object({ id: z.number().int() });

const route = routeGroup<DevMockDeps>('dev');

export const devMockRoutes = [
  route({
    method: 'POST',
    path: '/api/dev/mock/reset',
    access: 'admin-non-production',
    summary: 'Back to the bootstrap state: the admin (id 1) and Butler (id 2)',
    responses: { 200: { description: 'reset', schema: z.object({ status: z.literal('reset') }) } },
    handler: async (_input, { devMock }) => {
      await devMock.reset();
      return { status: 'reset' };
    },
  }),
  route({
    method: 'POST',
    path: '/api/dev/mock/chat',
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
    handler: async ({ body, res }, { devMock }) => {
      const { id, duplicate } = await devMock.insertChat(body);
      // A repeated local_id is stored once; the answer names the row it already made.
      res.status(duplicate ? 200 : 201).json({ id });
    },
  }),
  route({
    method: 'POST',
    path: '/api/dev/mock/feishu-log',
    access: 'admin-non-production',
    summary: "Append an entry to the current connector's log (the older seed script's call); level in any case",
    body: mockConnectorLogBody,
    responses: { 201: { description: 'appended', schema: okBody } },
    errors: { 404: 'no connector yet' },
    handler: async ({ body }, { devMock }) => {
      await devMock.appendConnectorLog(body);
      return { ok: true };
    },
  }),
  route({
    method: 'POST',
    path: '/api/dev/mock/ops-task',
    access: 'admin-non-production',
    summary: "Record an ops task for the older ops console (the older seed script's call); listed by GET /api/users/ops/tasks",
    description: 'The record says it finished now, after `duration_ms`; `success` is true unless sent false. Nothing runs it.',
    body: mockOpsTaskBody,
    responses: { 201: { description: 'recorded', schema: okBody } },
    handler: async ({ body }, { ops }) => {
      await ops.recordTask(body);
      return { ok: true };
    },
  }),
  route({
    method: 'GET',
    path: '/api/dev/mock/agent-token/:username',
    access: 'admin-non-production',
    summary: "An agent's raw api_token, for local bootstrap scripts",
    params: usernameParams,
    responses: { 200: { description: 'the token', schema: rawAgentToken } },
    errors: { 403: 'Butler runs inside the hub and has no api_token', 404: 'no such agent' },
    handler: ({ params }, { agents }) => agents.rawToken(params.username),
  }),
];
