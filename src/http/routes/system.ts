// Public system routes: the liveness probes (ping for the older clients, health), readiness, the
// OpenAPI document, and a clear answer for a plain HTTP request to the WebSocket endpoint (upgrades
// never reach Express: the uWS WebSocket route takes them).
import { z } from 'zod';
import { Errors } from '../../errors.js';
import { wsUpgradeQuery } from '../../protocol/frames.js';
import { healthBody, readyBody } from '../../protocol/responses.js';
import type { ReadinessCheck } from '../../ops/readiness.js';
import type { Routes } from '../context.js';
import { route } from '../context.js';
import { routeDocs } from '../routeDocs.js';

export const systemRouteDocs = routeDocs('system', {
  'GET /api/ping': {
    access: 'public',
    summary: 'Liveness, as the older clients ask for it',
    responses: { 200: { description: 'pong', schema: z.object({ message: z.literal('pong') }) } },
  },
  'GET /api/health': {
    access: 'public',
    summary: 'Liveness: the process is up and serving',
    responses: { 200: { description: 'alive', schema: healthBody } },
  },
  'GET /api/ready': {
    access: 'public',
    summary: 'Readiness: the store answers, migrations are applied, the hub is not shutting down',
    responses: { 200: { description: 'ready to serve', schema: readyBody } },
    errors: { 503: 'not ready, with the reason: the hub is shutting down, the store is unreachable, or migrations are missing' },
  },
  'GET /api/openapi.json': {
    access: 'public',
    summary: 'This document (OpenAPI 3.1)',
    responses: { 200: { description: 'the OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
  },
  'GET /api/ws': {
    access: 'public',
    summary: 'WebSocket upgrade (JSON text frames); a plain HTTP request gets 426',
    description: 'The credential is a JWT (humans) or an api_token (agents), in `token` or an Authorization bearer header.',
    query: wsUpgradeQuery,
    responses: { 101: { description: 'switched to the WebSocket protocol' } },
    errors: { 401: 'missing or invalid credential (before the upgrade)', 426: 'a plain HTTP request: connect with a WebSocket client' },
  },
});

export function systemRoutes(app: Routes, deps: { readiness: ReadinessCheck; openapi: () => object; startedAt: number }): void {
  app.get('/api/ping', (_req, res) => {
    res.json({ message: 'pong' });
  });
  app.get('/api/health', (_req, res) => {
    res.json({ status: 'ok', uptime_seconds: Math.round((performance.now() - deps.startedAt) / 100) / 10 });
  });
  app.get(
    '/api/ready',
    route(async (_req, res) => {
      const result = await deps.readiness.check();
      if (!result.ready) throw Errors.unavailable(`not ready: ${result.reason}`);
      res.json({ status: 'ready' });
    }),
  );
  app.get('/api/openapi.json', (_req, res) => {
    res.json(deps.openapi());
  });
  app.get('/api/ws', (_req, res, next) => {
    res.setHeader('Upgrade', 'websocket');
    next(Errors.upgradeRequired());
  });
}
