// The routes the app serves, as registered: route modules register through `wrap(app)`, which
// records each (method, pattern) and tags each request with the pattern it matched, so metrics and
// logs can name a route by its pattern (`/api/users/:id`), never by the path a client sent.
import type { Handler, Response, Routes } from './context.js';

export interface ServedRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
}

const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The pattern of the route that took this request; undefined when none matched (a 404). */
export function routePatternOf(res: Response): string | undefined {
  return (res.locals as { routePattern?: string }).routePattern;
}

/** Names the route that took this request, for handlers outside the table (the dashboard's files). */
export function tagRoute(res: Response, pattern: string): void {
  (res.locals as { routePattern?: string }).routePattern = pattern;
}

export function createRouteTable() {
  const served: ServedRoute[] = [];
  const patterns = new Set<string>();
  return {
    /** Every route registered so far, in order. */
    served: served as readonly ServedRoute[],
    /** Their patterns: the label values of the HTTP metrics. */
    patterns: patterns as ReadonlySet<string>,
    /**
     * A path served outside the route objects (a protocol endpoint such as /mcp): a route label for
     * metrics and logs, but not one of `served` (the documented API).
     */
    label(path: string): void {
      patterns.add(path);
    },
    /** The app's verb methods, recording what is registered through them. */
    wrap(app: Routes): Routes {
      const wrapped = {} as Record<(typeof VERBS)[number], unknown>;
      for (const verb of VERBS) {
        wrapped[verb] = (path: string, ...handlers: Handler[]) => {
          served.push({ method: verb.toUpperCase() as ServedRoute['method'], path });
          patterns.add(path);
          const tag: Handler = (_req, res, next) => {
            tagRoute(res, path);
            next();
          };
          return (app[verb] as (path: string, ...handlers: Handler[]) => unknown)(path, tag, ...handlers);
        };
      }
      return wrapped as unknown as Routes;
    },
  };
}
export type RouteTable = ReturnType<typeof createRouteTable>;
