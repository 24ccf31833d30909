// The OpenAPI 3.1 document of the HTTP API, built from the route objects (route.ts), which carry
// the access level and the zod schemas the routes run with. zod-openapi turns them into JSON Schema
// through zod 4's own converter, reads request schemas as inputs (a coerced `limit` is an integer
// query parameter with its default) and needs no patching of zod.
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorBody } from '../protocol/responses.js';
import type { AccessLevel, RouteDoc } from './routeDocs.js';
import { API_ROUTES } from './routes/index.js';

/** Every documented route: the route objects themselves, so a served route cannot go undocumented. */
export const ROUTE_DOCS: readonly RouteDoc[] = API_ROUTES;

const ACCESS_TEXT: Record<AccessLevel, string> = {
  public: 'public',
  metrics: 'public, or the METRICS_TOKEN bearer token when it is set',
  authenticated: 'any authenticated user (human JWT or agent api_token)',
  human: 'authenticated humans (ADMIN or MEMBER); machines get 403',
  admin: 'admins only',
  'admin-non-production': 'admins only, and never in production (403 there)',
  cards: 'any authenticated user (human JWT or agent api_token); public when A2A_PUBLIC_CARDS=true',
};

/** `/api/users/:id` → `/api/users/{id}` */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function securityOf(access: AccessLevel): Array<Record<string, string[]>> {
  if (access === 'public') return [];
  // An empty requirement makes the token optional: it is needed only when METRICS_TOKEN is set.
  if (access === 'metrics') return [{}, { metricsToken: [] }];
  if (access === 'cards') return [{}, { bearer: [] }];
  return [{ bearer: [] }];
}

function errorsOf(doc: RouteDoc): Record<number, string> {
  const errors: Record<number, string> = {};
  if (doc.params || doc.query || doc.body) errors[400] = 'invalid input: the message names the field';
  if (doc.access !== 'public' && doc.access !== 'metrics') errors[401] = 'missing or invalid credentials';
  if (doc.access === 'human') errors[403] = 'machines (agents, Butler) are not allowed';
  if (doc.access === 'admin') errors[403] = 'admin access required';
  if (doc.access === 'admin-non-production') errors[403] = 'admin access required, or mock endpoints are disabled in production';
  if (doc.heavyRead) {
    errors[429] = 'an expensive read: the caller already has READS_PER_CALLER of them in progress (Retry-After says when to try again)';
    errors[503] = 'an expensive read that took longer than DB_READ_TIMEOUT (Retry-After), or the hub is shutting down';
  }
  Object.assign(errors, doc.errors);
  errors[500] ??= 'Internal server error (the cause is only in the server log)';
  errors[503] ??= 'the hub is shutting down';
  return errors;
}

function operationOf(doc: RouteDoc): ZodOpenApiOperationObject {
  const responses: ZodOpenApiResponsesObject = {};
  for (const [status, r] of Object.entries(doc.responses)) {
    const headers = r.headers
      ? Object.fromEntries(Object.entries(r.headers).map(([name, description]) => [name, { description, schema: { type: 'string' as const } }]))
      : undefined;
    const content = r.schema
      ? { 'application/json': { schema: r.schema } }
      : r.contentType
        ? { [r.contentType]: { schema: { type: 'string' as const } } }
        : undefined;
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = { description: r.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  }
  for (const [status, description] of Object.entries(errorsOf(doc))) {
    responses[status as `${1 | 2 | 3 | 4 | 5}${string}`] = { description, content: { 'application/json': { schema: errorBody } } };
  }
  const requestParams = doc.params || doc.query ? { ...(doc.params ? { path: doc.params } : {}), ...(doc.query ? { query: doc.query } : {}) } : undefined;
  return {
    operationId: `${doc.method.toLowerCase()}${openApiPath(doc.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    tags: [doc.tag],
    summary: doc.summary,
    description: [`Access: ${ACCESS_TEXT[doc.access]}.`, doc.description].filter(Boolean).join('\n\n'),
    'x-access': doc.access,
    security: securityOf(doc.access),
    ...(requestParams ? { requestParams } : {}),
    ...(doc.body ? { requestBody: { required: true, content: { 'application/json': { schema: doc.body } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, as plain JSON data (what `GET /api/openapi.json` serves). */
export function buildOpenApiDocument(docs: readonly RouteDoc[] = ROUTE_DOCS): object {
  const paths: ZodOpenApiPathsObject = {};
  for (const doc of docs) {
    const item = (paths[openApiPath(doc.path)] ??= {});
    const method = doc.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    if (item[method]) throw new Error(`${doc.method} ${doc.path} is documented twice`);
    item[method] = operationOf(doc);
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Agent messaging hub',
      version: '1',
      description:
        'HTTP JSON API of the hub: humans, AI agents and Butler. Every path but /metrics is under /api. ' +
        'Each operation states who may call it (`x-access`: public, metrics, authenticated, human, admin, admin-non-production, cards).',
    },
    tags: [...new Set(docs.map((d) => d.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a JWT from POST /api/auth/login, or an agent api_token' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
      },
    },
  });
}
