// The older dashboards' ops panels (`/api/users/ops/...`, admin only), with the older hub's shapes,
// statuses and messages: SSH keys and infra nodes kept as an inventory the panels list, edit and
// delete, and task records. No ops executor runs here: the status says so, and a node test answers
// that nothing can reach the node.
import { z } from 'zod';
import { idParams } from '../../protocol/http.js';
import {
  infraNodeBody,
  infraNodeFields,
  infraNodeTestView,
  infraNodeView,
  opsStatusBody,
  opsTasksQuery,
  opsTaskView,
  sshKeyCreateBody,
  sshKeyFields,
  sshKeyUpdateBody,
  sshKeyView,
} from '../../protocol/ops.js';
import { okBody } from '../../protocol/responses.js';
import type { OpsInventoryService } from '../../services/opsInventory.js';
import { inputReader, routeGroup } from '../route.js';
import { parseBody } from '../validate.js';

export interface OpsDeps {
  ops: Pick<
    OpsInventoryService,
    'status' | 'listKeys' | 'createKey' | 'updateKey' | 'deleteKey' | 'listNodes' | 'createNode' | 'updateNode' | 'deleteNode' | 'testNode' | 'listTasks'
  >;
}

// Read loosely, so a missing required field gets the older hub's one sentence (the service's);
// documented with what is required.
/** A field that is null or "" counts as missing (wire.md §1), so it gets the older hub's sentence, not a type error. */
const withoutNulls = (raw: unknown): unknown =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null && v !== '')) : raw;
const sshKeyCreate = inputReader(sshKeyCreateBody, (raw) => parseBody(sshKeyFields, withoutNulls(raw)));
const sshKeyUpdate = inputReader(sshKeyUpdateBody, (raw) => parseBody(sshKeyFields, withoutNulls(raw)));
const infraNode = inputReader(infraNodeBody, (raw) => parseBody(infraNodeFields, withoutNulls(raw)));

const route = routeGroup<OpsDeps>('ops');

export const opsRoutes = [
  route({
    method: 'GET',
    path: '/api/users/ops/status',
    access: 'admin',
    summary: 'The ops executor of the older dashboards: none runs here; what the inventory holds',
    responses: { 200: { description: 'disabled, with the inventory counted', schema: opsStatusBody } },
    handler: (_input, { ops }) => ops.status(),
  }),
  route({
    method: 'GET',
    path: '/api/users/ops/tasks',
    access: 'admin',
    summary: 'Ops task records, newest first (only seeded here: no executor runs tasks)',
    query: opsTasksQuery,
    responses: { 200: { description: 'task records', schema: z.array(opsTaskView) } },
    handler: ({ query }, { ops }) => ops.listTasks(query.limit),
  }),
  route({
    method: 'GET',
    path: '/api/users/ops/ssh-keys',
    access: 'admin',
    summary: 'SSH keys, newest first: fingerprints, never private keys',
    responses: { 200: { description: 'SSH keys', schema: z.array(sshKeyView) } },
    handler: (_input, { ops }) => ops.listKeys(),
  }),
  route({
    method: 'POST',
    path: '/api/users/ops/ssh-keys',
    access: 'admin',
    summary: 'Keep an SSH key: the private key is stored encrypted and never returned',
    description: 'Without `public_key` it is derived from the private key; with one, it must belong to it.',
    body: sshKeyCreate,
    responses: { 201: { description: 'the key, its private key left out', schema: sshKeyView } },
    errors: {
      400: 'ssh key name and private key are required; or a key that cannot be read, is passphrase-protected, or does not match',
      409: 'ssh key name already exists',
    },
    handler: ({ body }, { ops }) => ops.createKey(body),
  }),
  route({
    method: 'PATCH',
    path: '/api/users/ops/ssh-keys/:id',
    access: 'admin',
    summary: 'Rename an SSH key or replace its keys; an empty private key keeps the stored one',
    params: idParams,
    body: sshKeyUpdate,
    responses: { 200: { description: 'the key, its private key left out', schema: sshKeyView } },
    errors: {
      400: 'ssh key name is required; or key material that cannot be read or does not match',
      404: 'ssh key not found',
      409: 'ssh key name already exists',
    },
    handler: ({ params, body }, { ops }) => ops.updateKey(params.id, body),
  }),
  route({
    method: 'DELETE',
    path: '/api/users/ops/ssh-keys/:id',
    access: 'admin',
    summary: 'Delete an SSH key no node uses',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 404: 'ssh key not found', 409: 'a node still uses the key' },
    handler: async ({ params }, { ops }) => {
      await ops.deleteKey(params.id);
      return { ok: true };
    },
  }),
  route({
    method: 'GET',
    path: '/api/users/ops/nodes',
    access: 'admin',
    summary: 'Infra nodes, newest first',
    responses: { 200: { description: 'infra nodes', schema: z.array(infraNodeView) } },
    handler: (_input, { ops }) => ops.listNodes(),
  }),
  route({
    method: 'POST',
    path: '/api/users/ops/nodes',
    access: 'admin',
    summary: 'Keep an infra node (port 22 unless given), naming one of the SSH keys',
    body: infraNode,
    responses: { 201: { description: 'the node', schema: infraNodeView } },
    errors: { 400: 'name, host, ssh_user, and ssh_key_id are required', 404: 'ssh key not found', 409: 'infra node name already exists' },
    handler: ({ body }, { ops }) => ops.createNode(body),
  }),
  route({
    method: 'PATCH',
    path: '/api/users/ops/nodes/:id',
    access: 'admin',
    summary: 'Change an infra node: the whole node, as on create',
    params: idParams,
    body: infraNode,
    responses: { 200: { description: 'the node', schema: infraNodeView } },
    errors: {
      400: 'name, host, ssh_user, and ssh_key_id are required',
      404: 'infra node not found, or ssh key not found',
      409: 'infra node name already exists',
    },
    handler: ({ params, body }, { ops }) => ops.updateNode(params.id, body),
  }),
  route({
    method: 'DELETE',
    path: '/api/users/ops/nodes/:id',
    access: 'admin',
    summary: 'Delete an infra node',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 404: 'infra node not found' },
    handler: async ({ params }, { ops }) => {
      await ops.deleteNode(params.id);
      return { ok: true };
    },
  }),
  route({
    method: 'POST',
    path: '/api/users/ops/nodes/:id/test',
    access: 'admin',
    summary: "The older panels' connectivity check: always `ok: false`, since no executor can reach nodes from this hub",
    params: idParams,
    responses: { 200: { description: 'not reachable from here, and why', schema: infraNodeTestView } },
    errors: { 404: 'infra node not found' },
    handler: ({ params }, { ops }) => ops.testNode(params.id),
  }),
];
