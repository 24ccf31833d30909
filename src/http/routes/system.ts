// Public system routes: the liveness probes (ping for the older clients, health), readiness, the
// OpenAPI document, and a clear answer for a plain HTTP request to the WebSocket endpoint (upgrades
// never reach Express: the uWS WebSocket route takes them).
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { wsUpgradeQuery } from '../../protocol/frames.js';
import { healthBody, readyBody } from '../../protocol/responses.js';
import type { ReadinessCheck } from '../../ops/readiness.js';
import { inputReader, routeGroup } from '../route.js';

export interface SystemDeps {
  readiness: Pick<ReadinessCheck, 'check'>;
  /** The OpenAPI document (built on first use). */
  openapi: () => object;
  /** performance.now() when the hub started. */
  startedAt: number;
}

const route = routeGroup<SystemDeps>('system');

export const systemRoutes = [
  route({
    method: 'GET',
    path: '/api/ping',
    access: 'public',
    summary: 'Liveness, as the older clients ask for it',
    responses: { 200: { description: 'pong', schema: z.object({ message: z.literal('pong') }) } },
    handler: () => ({ message: 'pong' }),
  }),
  route({
    method: 'GET',
    path: '/api/health',
    access: 'public',
    summary: 'Liveness: the process is up and serving',
    responses: { 200: { description: 'alive', schema: healthBody } },
    handler: (_input, deps) => ({ status: 'ok', uptime_seconds: Math.round((performance.now() - deps.startedAt) / 100) / 10 }),
  }),
  route({
    method: 'GET',
    path: '/api/ready',
    access: 'public',
    summary: 'Readiness: the store answers, migrations are applied, the hub is not shutting down',
    responses: {
      200: {
        description:
          "ready to serve; `degraded` (cluster mode): Redis is away (this node serves its own sockets and reads the others' messages from the store), or it hands frames over more than 2 s behind the commits",
        schema: readyBody,
      },
    },
    errors: { 503: 'not ready, with the reason: the hub is shutting down, the store is unreachable, or migrations are missing' },
    handler: async (_input, deps) => {
      const result = await deps.readiness.check();
      if (!result.ready) throw Errors.unavailable(`not ready: ${result.reason}`);
      // Degraded still serves its own sockets: a load balancer keeps sending it traffic.
      return result.degraded ? { status: 'degraded', reason: result.degraded } : { status: 'ready' };
    },
  }),
  route({
    method: 'GET',
    path: '/api/openapi.json',
    access: 'public',
    summary: 'This document (OpenAPI 3.1)',
    responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: (_input, deps) => deps.openapi(),
  }),
  route({
    method: 'GET',
    path: '/api/ws',
    access: 'public',
    summary: 'WebSocket upgrade (JSON text frames); a plain HTTP request gets 426',
    description: 'The credential is a JWT (humans) or an api_token (agents), in `token` or an Authorization bearer header.',
    // The upgrade handler reads the query; a plain request gets 426 whatever it sent.
    query: inputReader(wsUpgradeQuery, () => undefined),
    responses: { 101: { description: 'switched to the WebSocket protocol' } },
    errors: { 401: 'missing or invalid credential (before the upgrade)', 426: 'a plain HTTP request: connect with a WebSocket client' },
    handler: ({ res }) => {
      res.setHeader('Upgrade', 'websocket');
      throw Errors.upgradeRequired();
    },
  }),
];
