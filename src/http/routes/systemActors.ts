// Actor inspection for admins: a summary of the live actor system and one actor's snapshot.
import { Errors } from '../../errors.js';
import { actorParams, actorsQuery } from '../../protocol/operations.js';
import { actorSnapshot, actorsSummary } from '../../protocol/responses.js';
import type { Inspection } from '../../ops/inspection.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseWith } from '../validate.js';

export const actorRouteDocs = routeDocs('operations', {
  'GET /api/admin/actors': {
    access: 'admin',
    summary: 'The live actor system: the router, connection actors by state and role, and any other part that plugs in',
    query: actorsQuery,
    responses: { 200: { description: 'one section per part', schema: actorsSummary } },
  },
  'GET /api/admin/actors/:actor_id': {
    access: 'admin',
    summary: "One actor's snapshot: state, status and context, without secrets",
    params: actorParams,
    responses: { 200: { description: 'the snapshot', schema: actorSnapshot } },
    errors: { 404: 'no live actor with that id' },
  },
});

export function actorRoutes(app: Routes, deps: { access: Access; inspection: Inspection }): void {
  const { access, inspection } = deps;
  app.get(
    '/api/admin/actors',
    ...access.admin,
    route((req, res) => {
      const query = parseWith(actorsQuery, req.query);
      res.json(inspection.summary({ userId: query.user_id, limit: query.limit }));
    }),
  );
  app.get(
    '/api/admin/actors/:actor_id',
    ...access.admin,
    route((req, res) => {
      const { actor_id } = parseWith(actorParams, req.params);
      const snapshot = inspection.snapshot(actor_id);
      if (!snapshot) throw Errors.notFound(`actor ${actor_id}`);
      res.json(snapshot);
    }),
  );
}
