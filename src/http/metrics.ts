// HTTP request metrics: count by method, route pattern and status, and a duration histogram by
// method and route. The route is the pattern the request matched (`unmatched` for a 404 on an
// unknown path, `dashboard` for the dashboard's files), so label values never come from the path a
// client typed.
import type { Request, Response } from './context.js';
import { routePatternOf } from './routeTable.js';
import type { MetricsFactory } from '../metrics/families.js';
import { ErrorStatus } from '../protocol/errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const STATUSES = [200, 201, 204, 304, ...Object.values(ErrorStatus)].map(String);
export const UNMATCHED_ROUTE = 'unmatched';
export const DASHBOARD_ROUTE = 'dashboard';

/** `observe` for the request log: one call per finished request. */
export function createHttpMeter(factory: MetricsFactory, patterns: ReadonlySet<string>) {
  const routes = new Set([UNMATCHED_ROUTE, DASHBOARD_ROUTE]);
  // The route table fills while the app starts; the label set follows it.
  const routeSet = { has: (v: string) => routes.has(v) || patterns.has(v) } as ReadonlySet<string>;
  const requests = factory.counter({
    name: 'hub_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labels: { method: METHODS, route: routeSet, status: STATUSES },
  });
  const duration = factory.histogram({
    name: 'hub_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern',
    labels: { method: METHODS, route: routeSet },
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  });
  return (req: Request, res: Response, seconds: number): void => {
    const route = routePatternOf(res) ?? UNMATCHED_ROUTE;
    requests.labels({ method: req.method, route, status: res.statusCode }).inc();
    duration.labels({ method: req.method, route }).observe(seconds);
  };
}
