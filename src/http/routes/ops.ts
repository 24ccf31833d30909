// The older dashboards' operations pages (`/api/users/ops/...`), answered honestly: this hub has no
// managed ops executor, so the status says disabled and the lists are empty (the pages then show
// "disabled" instead of an error banner), and every change answers 501 naming what is missing.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { opsStatusBody } from '../../protocol/responses.js';
import { routeGroup } from '../route.js';
import type { HttpMethod } from '../routeDocs.js';

const NO_EXECUTOR = 'this hub has no managed ops executor';
const EMPTY_LIST = { 200: { description: 'always empty: this hub has no managed ops executor', schema: z.array(z.unknown()).max(0) } };

const OPS_STATUS: z.infer<typeof opsStatusBody> = {
  enabled: false,
  worker_reachable: false,
  worker_mode: '',
  service_url: '',
  managed_agent_id: 0,
  managed_agent_name: '',
  node_count: 0,
  ssh_key_count: 0,
};

const LISTS = [
  ['/api/users/ops/tasks', 'Ops tasks run by the executor (none)'],
  ['/api/users/ops/ssh-keys', 'SSH keys of the executor (none)'],
  ['/api/users/ops/nodes', 'Nodes of the executor (none)'],
] as const;

/** Changes the older dashboards can ask for, each with the sentence its 501 answers. */
const UNSUPPORTED_CHANGES: ReadonlyArray<readonly [HttpMethod, string, string]> = [
  ['POST', '/api/users/ops/ssh-keys', 'SSH keys cannot be added'],
  ['PATCH', '/api/users/ops/ssh-keys/:id', 'SSH keys cannot be changed'],
  ['DELETE', '/api/users/ops/ssh-keys/:id', 'SSH keys cannot be deleted'],
  ['POST', '/api/users/ops/nodes', 'nodes cannot be added'],
  ['PATCH', '/api/users/ops/nodes/:id', 'nodes cannot be changed'],
  ['DELETE', '/api/users/ops/nodes/:id', 'nodes cannot be deleted'],
  ['POST', '/api/users/ops/nodes/:id/test', 'nodes cannot be tested'],
];

const route = routeGroup<unknown>('ops');

export const opsRoutes = [
  route({
    method: 'GET',
    path: '/api/users/ops/status',
    access: 'admin',
    summary: 'The ops executor of the older dashboards: always disabled here',
    responses: { 200: { description: 'disabled', schema: opsStatusBody } },
    handler: () => OPS_STATUS,
  }),
  ...LISTS.map(([path, summary]) => route({ method: 'GET', path, access: 'admin', summary, responses: EMPTY_LIST, handler: () => [] })),
  ...UNSUPPORTED_CHANGES.map(([method, path, what]) =>
    route({
      method,
      path,
      access: 'admin',
      summary: 'Not supported: no ops executor',
      responses: {},
      errors: { 501: NO_EXECUTOR },
      handler: () => {
        throw Errors.notImplemented(`${what}: ${NO_EXECUTOR}`);
      },
    }),
  ),
];
