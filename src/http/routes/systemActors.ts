// Actor inspection for admins: a summary of the live actor system and one actor's snapshot.
import { Errors } from '../../errors.js';
import { actorParams, actorsQuery } from '../../protocol/operations.js';
import { actorSnapshot, actorsSummary } from '../../protocol/responses.js';
import type { Inspection } from '../../ops/inspection.js';
import { routeGroup } from '../route.js';

export interface ActorDeps {
  inspection: Pick<Inspection, 'summary' | 'snapshot'>;
}

const route = routeGroup<ActorDeps>('operations');

export const actorRoutes = [
  route({
    method: 'GET',
    path: '/api/admin/actors',
    access: 'admin',
    summary: 'The live actor system: the router, connection actors by state and role, and any other part that plugs in',
    query: actorsQuery,
    responses: { 200: { description: 'one section per part', schema: actorsSummary } },
    handler: ({ query }, { inspection }) => inspection.summary({ userId: query.user_id, limit: query.limit }),
  }),
  route({
    method: 'GET',
    path: '/api/admin/actors/:actor_id',
    access: 'admin',
    summary: "One actor's snapshot: state, status and context, without secrets",
    params: actorParams,
    responses: { 200: { description: 'the snapshot', schema: actorSnapshot } },
    errors: { 404: 'no live actor with that id' },
    handler: ({ params }, { inspection }) => {
      const snapshot = inspection.snapshot(params.actor_id);
      if (!snapshot) throw Errors.notFound(`actor ${params.actor_id}`);
      return snapshot;
    },
  }),
];
