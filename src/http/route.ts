// Each HTTP route is declared once, as a route object: method, path, who may call it, the zod
// schemas of its params, query and body, what it answers, and its handler. `mount` registers the
// objects on the app (access check, then params, query and body parsed in that order, then the
// handler with the parsed input), and the OpenAPI document is built from the same objects, so the
// document, the access check and the parsing cannot drift apart.
import type { z } from 'zod';
import type { UserRow } from '../store/schema.js';
import type { Access } from './auth.js';
import type { ReadGate } from './readGate.js';
import type { Handler, Request, Response, Routes } from './context.js';
import type { AccessLevel, HttpMethod, ResponseDoc, RouteDoc } from './routeDocs.js';
import { parseBody, parseWith } from './validate.js';

/**
 * An input that one schema documents but that is read in more than one step (two wire forms, keys
 * renamed first) or not here at all. `read` must refuse bad input with the 400s `parseBody` gives.
 */
export interface InputReader<T, S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly read: (raw: unknown) => T;
}

export function inputReader<S extends z.ZodType, T>(schema: S, read: (raw: unknown) => T): InputReader<T, S> {
  return { schema, read };
}

type ObjectInput = z.ZodObject | InputReader<unknown, z.ZodObject>;
type BodyInput = z.ZodType | InputReader<unknown>;

/** What the handler gets for a declared input: the reader's result or the schema's output. */
type Read<I> = I extends InputReader<infer T, z.ZodType> ? T : I extends z.ZodType ? z.output<I> : undefined;

/** The authenticated user; public routes have none. */
export type CallerOf<A extends AccessLevel> = A extends 'public' | 'metrics' ? undefined : A extends 'cards' ? UserRow | undefined : UserRow;

export interface RouteInput<A extends AccessLevel, P, Q, B> {
  params: Read<P>;
  query: Read<Q>;
  body: Read<B>;
  caller: CallerOf<A>;
  req: Request;
  res: Response;
}

/**
 * A route as written in its module. A handler's return value other than undefined is sent as JSON
 * with the one success (2xx) status the route documents; a handler that answers otherwise (another
 * status, a text body) writes to `res` itself and returns undefined.
 */
export type RouteDef<D, A extends AccessLevel, P, Q, B> = {
  method: HttpMethod;
  path: string;
  access: A;
  summary: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  responses: Record<number, ResponseDoc>;
  errors?: Record<number, string>;
  /** An expensive read: see RouteDoc.heavyRead. */
  heavyRead?: boolean;
  handler: (input: RouteInput<A, P, Q, B>, deps: D) => unknown;
} & (A extends 'human' ? { /** The 403 text a machine gets. */ machineRefusal: string } : { machineRefusal?: undefined });

interface AnyInput {
  params: unknown;
  query: unknown;
  body: unknown;
  caller: UserRow | undefined;
  req: Request;
  res: Response;
}

/** A declared route, its types erased: what `mount` registers and the OpenAPI document describes. */
export interface Route<D> extends RouteDoc {
  readonly machineRefusal?: string;
  readonly read: { params?: (raw: unknown) => unknown; query?: (raw: unknown) => unknown; body?: (raw: unknown) => unknown };
  readonly handler: (input: AnyInput, deps: D) => unknown;
}

function isReader(input: unknown): input is InputReader<unknown> {
  return typeof input === 'object' && input !== null && 'read' in input && 'schema' in input;
}

function schemaOf<S extends z.ZodType>(input: S | InputReader<unknown, S> | undefined): S | undefined {
  return isReader(input) ? input.schema : input;
}

function readerOf(input: z.ZodType | InputReader<unknown> | undefined, parse: (schema: z.ZodType, raw: unknown) => unknown) {
  if (input === undefined) return undefined;
  if (isReader(input)) return input.read;
  return (raw: unknown) => parse(input, raw);
}

/** The route declarer of one module: its OpenAPI tag and the services its handlers use. */
export function routeGroup<D>(tag: string) {
  return function route<
    A extends AccessLevel,
    P extends ObjectInput | undefined = undefined,
    Q extends ObjectInput | undefined = undefined,
    B extends BodyInput | undefined = undefined,
  >(def: RouteDef<D, A, P, Q, B>): Route<D> {
    const { params, query, body, handler, ...doc } = def;
    return {
      ...doc,
      tag,
      params: schemaOf<z.ZodObject>(params),
      query: schemaOf<z.ZodObject>(query),
      body: schemaOf<z.ZodType>(body),
      read: { params: readerOf(params, parseWith), query: readerOf(query, parseWith), body: readerOf(body, parseBody) },
      handler: handler as Route<D>['handler'],
    };
  };
}

/** The status a returned body is sent with: the route's one documented success status. */
function successStatus(route: RouteDoc): number | undefined {
  const success = Object.keys(route.responses)
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  return success.length === 1 ? success[0] : undefined;
}

/**
 * Registers the routes, in order, on the app; `deps` is what their handlers are given. A `heavyRead`
 * route's handler runs only within a slot of its caller's in `readGate`, held until the handler is
 * done; without a free slot the request is refused (429) after the gate's pause.
 */
export function mount<D>(app: Routes, routes: readonly Route<D>[], deps: D, access: Access, readGate: ReadGate): void {
  for (const route of routes) {
    const guard = access.guard(route.access, route.machineRefusal);
    const status = successStatus(route);
    const answer = (res: Response, out: unknown) => {
      if (out === undefined) return;
      if (status === undefined) throw new Error(`${route.method} ${route.path} returned a body but documents no single success status`);
      res.status(status).json(out);
    };
    const serve = (req: Request, res: Response, caller: UserRow | undefined): Promise<void> | void => {
      const input: AnyInput = {
        params: route.read.params?.(req.params),
        query: route.read.query?.(req.query),
        body: route.read.body?.(req.body),
        caller,
        req,
        res,
      };
      const release = route.heavyRead && caller ? readGate.enter(caller.id) : undefined;
      if (release === false) return readGate.refusal();
      let out: unknown;
      try {
        out = route.handler(input, deps);
      } catch (err) {
        release?.();
        throw err;
      }
      if (out instanceof Promise) return out.finally(release).then((value: unknown) => answer(res, value));
      release?.();
      answer(res, out);
    };
    // Synchronous as far as the route allows: a public route that answers at once does so in this call.
    const handler: Handler = (req, res, next) => {
      try {
        const caller = guard(req);
        const done = caller instanceof Promise ? caller.then((user) => serve(req, res, user)) : serve(req, res, caller);
        if (done instanceof Promise) done.catch(next);
      } catch (err) {
        next(err);
      }
    };
    app[route.method.toLowerCase() as Lowercase<HttpMethod>](route.path, handler);
  }
}
