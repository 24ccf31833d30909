// The older dashboards' operations pages (`/api/users/ops/...`), answered honestly: this hub has no
// managed ops executor, so the status says disabled and the lists are empty (the pages then show
// "disabled" instead of an error banner), and every change answers 501 naming what is missing.
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { opsStatusBody } from '../../protocol/responses.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';

const NO_EXECUTOR = 'this hub has no managed ops executor';
const EMPTY_LIST = { 200: { description: 'always empty: this hub has no managed ops executor', schema: z.array(z.unknown()).max(0) } };
const UNSUPPORTED = { 501: NO_EXECUTOR };

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

/** Changes the older dashboards can ask for, each with the sentence its 501 answers. */
const UNSUPPORTED_CHANGES = [
  ['post', '/api/users/ops/ssh-keys', 'SSH keys cannot be added'],
  ['patch', '/api/users/ops/ssh-keys/:id', 'SSH keys cannot be changed'],
  ['delete', '/api/users/ops/ssh-keys/:id', 'SSH keys cannot be deleted'],
  ['post', '/api/users/ops/nodes', 'nodes cannot be added'],
  ['patch', '/api/users/ops/nodes/:id', 'nodes cannot be changed'],
  ['delete', '/api/users/ops/nodes/:id', 'nodes cannot be deleted'],
  ['post', '/api/users/ops/nodes/:id/test', 'nodes cannot be tested'],
] as const;

export const opsRouteDocs = routeDocs('ops', {
  'GET /api/users/ops/status': {
    access: 'admin',
    summary: 'The ops executor of the older dashboards: always disabled here',
    responses: { 200: { description: 'disabled', schema: opsStatusBody } },
  },
  'GET /api/users/ops/tasks': { access: 'admin', summary: 'Ops tasks run by the executor (none)', responses: EMPTY_LIST },
  'GET /api/users/ops/ssh-keys': { access: 'admin', summary: 'SSH keys of the executor (none)', responses: EMPTY_LIST },
  'GET /api/users/ops/nodes': { access: 'admin', summary: 'Nodes of the executor (none)', responses: EMPTY_LIST },
  'POST /api/users/ops/ssh-keys': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'PATCH /api/users/ops/ssh-keys/:id': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'DELETE /api/users/ops/ssh-keys/:id': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'POST /api/users/ops/nodes': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'PATCH /api/users/ops/nodes/:id': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'DELETE /api/users/ops/nodes/:id': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
  'POST /api/users/ops/nodes/:id/test': { access: 'admin', summary: 'Not supported: no ops executor', responses: {}, errors: UNSUPPORTED },
});

export function opsRoutes(app: Routes, deps: { access: Access }): void {
  const { access } = deps;
  app.get(
    '/api/users/ops/status',
    ...access.admin,
    route((_req, res) => {
      res.json(OPS_STATUS);
    }),
  );
  for (const path of ['/api/users/ops/tasks', '/api/users/ops/ssh-keys', '/api/users/ops/nodes']) {
    app.get(
      path,
      ...access.admin,
      route((_req, res) => {
        res.json([]);
      }),
    );
  }
  for (const [verb, path, what] of UNSUPPORTED_CHANGES) {
    app[verb](
      path,
      ...access.admin,
      route(() => {
        throw Errors.notImplemented(`${what}: ${NO_EXECUTOR}`);
      }),
    );
  }
}
