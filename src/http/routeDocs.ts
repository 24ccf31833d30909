// What the OpenAPI document says about each route, declared in the route's own module next to its
// registration and built from the same zod schemas the route parses with. `routeDocs()` keys each
// entry by "METHOD /path" exactly as the route is registered; the OpenAPI test fails when a served
// route has no entry or an entry names no served route.
import type { z } from 'zod';

/**
 * Who may call a route. `metrics`: public unless METRICS_TOKEN is set, then that bearer token;
 * `human`: any authenticated ADMIN or MEMBER (machines get 403).
 */
export const AccessLevels = ['public', 'metrics', 'authenticated', 'human', 'admin', 'admin-non-production'] as const;
export type AccessLevel = (typeof AccessLevels)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ResponseDoc {
  description: string;
  /** JSON body; absent: no body described. */
  schema?: z.ZodType;
  /** A body that is not JSON (the metrics text). */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDocEntry {
  access: AccessLevel;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Success answers by status. */
  responses: Record<number, ResponseDoc>;
  /** Route-specific error statuses and when they happen; 400/401/403/500/503 are added from the access level and inputs. */
  errors?: Record<number, string>;
}

export interface RouteDoc extends RouteDocEntry {
  method: HttpMethod;
  /** The Express pattern: `/api/users/:id`. */
  path: string;
  tag: string;
}

type Key = `${HttpMethod} /${string}`;

export function routeDocs(tag: string, entries: Record<Key, RouteDocEntry>): RouteDoc[] {
  return Object.entries(entries).map(([key, entry]) => {
    const space = key.indexOf(' ');
    return { ...entry, method: key.slice(0, space) as HttpMethod, path: key.slice(space + 1), tag };
  });
}
