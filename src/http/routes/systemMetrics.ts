// GET /metrics: the Prometheus text exposition, on the hub's own port. Open unless METRICS_TOKEN is
// set; then a scraper sends it as a bearer token (compared in constant time).
import { createHash, timingSafeEqual } from 'node:crypto';
import { Errors } from '../../errors.js';
import type { Metrics } from '../../metrics/registry.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';

export const metricsRouteDocs = routeDocs('operations', {
  'GET /metrics': {
    access: 'metrics',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Sockets, frames, errors, the write pipeline, HTTP requests, event-loop lag and process figures; see the README section Operations.',
    responses: { 200: { description: 'the metrics', contentType: 'text/plain; version=0.0.4; charset=utf-8' } },
    errors: { 401: 'METRICS_TOKEN is set and the bearer token is missing or wrong', 404: 'metrics are disabled (METRICS_ENABLED=false)' },
  },
});

const BEARER = /^bearer\s+(\S+)\s*$/i;
const digest = (text: string) => createHash('sha256').update(text).digest();

export function metricsRoutes(app: Routes, deps: { metrics: Metrics; token: string | undefined }): void {
  const expected = deps.token === undefined ? undefined : digest(deps.token);
  app.get(
    '/metrics',
    route(async (req, res) => {
      if (expected) {
        const header = req.headers['authorization'];
        if (!header) throw Errors.authHeaderRequired();
        const given = BEARER.exec(String(header))?.[1];
        if (given === undefined) throw Errors.authHeaderFormat();
        if (!timingSafeEqual(digest(given), expected)) throw Errors.invalidToken();
      }
      if (!deps.metrics.enabled) throw Errors.metricsDisabled();
      const text = await deps.metrics.render();
      res.setHeader('Content-Type', deps.metrics.contentType);
      res.send(text);
    }),
  );
}
