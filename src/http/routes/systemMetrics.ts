// GET /metrics: the Prometheus text exposition, on the hub's own port. Open unless METRICS_TOKEN is
// set; then a scraper sends it as a bearer token (the 'metrics' access level, auth.ts).
import { Errors } from '../../errors.js';
import type { Metrics } from '../../metrics/registry.js';
import { routeGroup } from '../route.js';

export interface MetricsDeps {
  metrics: Metrics;
}

const route = routeGroup<MetricsDeps>('operations');

export const metricsRoutes = [
  route({
    method: 'GET',
    path: '/metrics',
    access: 'metrics',
    summary: 'Prometheus metrics (text exposition format)',
    description: 'Sockets, frames, errors, the write pipeline, HTTP requests, event-loop lag and process figures; see the README section Operations.',
    responses: { 200: { description: 'the metrics', contentType: 'text/plain; version=0.0.4; charset=utf-8' } },
    errors: { 401: 'METRICS_TOKEN is set and the bearer token is missing or wrong', 404: 'metrics are disabled (METRICS_ENABLED=false)' },
    handler: async ({ res }, { metrics }) => {
      if (!metrics.enabled) throw Errors.metricsDisabled();
      const text = await metrics.render();
      res.setHeader('Content-Type', metrics.contentType);
      res.send(text);
    },
  }),
];
