// What the OpenAPI document says about a route. Every route object (route.ts) is one of these plus
// its handler, so the document describes the very access level and schemas the route runs with.
import type { z } from 'zod';

/**
 * Who may call a route. `metrics`: public unless METRICS_TOKEN is set, then that bearer token;
 * `human`: any authenticated ADMIN or MEMBER (machines get 403); `cards`: A2A agent cards, public when
 * A2A_PUBLIC_CARDS=true, otherwise any authenticated user.
 */
export const AccessLevels = ['public', 'metrics', 'authenticated', 'human', 'admin', 'admin-non-production', 'cards'] as const;
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

export interface RouteDoc {
  method: HttpMethod;
  /** The Express pattern: `/api/users/:id`. */
  path: string;
  tag: string;
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
  /**
   * An expensive read (it may walk every row of a window): run on the store's read side under its
   * deadline (503) and counted against the caller's READS_PER_CALLER (429), see http/readGate.ts.
   */
  heavyRead?: boolean;
}
