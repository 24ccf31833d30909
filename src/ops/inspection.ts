// Actor inspection: what `GET /api/admin/actors` and `/api/admin/actors/:id` show, and what tests
// read. Each part of the live system (the router, the connection actors, Butler and the
// connector) plugs in as an InspectableSource: a summary section and snapshots by actor id. Every
// snapshot passes through `safeView`, which drops functions and sockets and redacts anything named
// like a secret, so a source that forgets a field still cannot leak a token.
import type { AnyActorRef, SnapshotFrom } from 'xstate';

/** One actor as the API shows it. */
export interface ActorSnapshotView {
  id: string;
  kind: string;
  /** The state value flattened: `open.live`. */
  state: string;
  /** XState's status: active, done, error or stopped. */
  status: string;
  context: Record<string, unknown>;
}

export interface SummaryQuery {
  /** Only this user's actors, where a source lists actors per user. */
  userId?: number;
  /** At most this many listed actors per source. */
  limit: number;
}

export interface InspectableSource {
  /** The section of the summary this source fills: `router`, `connections`, `butler`, `connector`. */
  readonly name: string;
  summary(query: SummaryQuery): Record<string, unknown>;
  /** The snapshot of one of its actors, or undefined when the id is not one of them. */
  snapshot(id: string): ActorSnapshotView | undefined;
}

export interface Inspection {
  /** Plugs a source in; the returned function takes it out again. */
  add(source: InspectableSource): () => void;
  summary(query: SummaryQuery): Record<string, unknown>;
  snapshot(id: string): ActorSnapshotView | undefined;
}

export function createInspection(): Inspection {
  const sources = new Map<string, InspectableSource>();
  return {
    add(source) {
      if (sources.has(source.name)) throw new Error(`an inspection source named ${source.name} is already registered`);
      sources.set(source.name, source);
      return () => void sources.delete(source.name);
    },
    summary(query) {
      const out: Record<string, unknown> = {};
      for (const [name, source] of sources) out[name] = safeView(source.summary(query));
      return out;
    },
    snapshot(id) {
      for (const source of sources.values()) {
        const view = source.snapshot(id);
        if (view) return { ...view, context: safeView(view.context) as Record<string, unknown> };
      }
      return undefined;
    },
  };
}

/** XState's state value as one string: `open.live`, or `a.b,c.d` for parallel regions. */
export function stateOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  return Object.entries(value as Record<string, unknown>)
    .map(([key, child]) => (child && typeof child === 'object' && Object.keys(child).length === 0 ? key : `${key}.${stateOf(child)}`))
    .join(',');
}

/**
 * A source for one long-lived actor (Butler, the connector machine): `project` turns its context
 * into what an operator should see; `safeView` still applies on top.
 */
export function actorSource<A extends AnyActorRef>(options: {
  name: string;
  id: string;
  kind: string;
  actor: A;
  project?: (context: SnapshotFrom<A> extends { context: infer C } ? C : unknown) => Record<string, unknown>;
}): InspectableSource {
  const view = (): ActorSnapshotView => {
    const snapshot = options.actor.getSnapshot() as { value?: unknown; status: string; context?: unknown };
    const context = options.project ? options.project(snapshot.context as never) : ((snapshot.context ?? {}) as Record<string, unknown>);
    return { id: options.id, kind: options.kind, state: stateOf(snapshot.value), status: snapshot.status, context };
  };
  return {
    name: options.name,
    summary: () => {
      const { id, kind, state, status } = view();
      return { id, kind, state, status };
    },
    snapshot: (id) => (id === options.id ? view() : undefined),
  };
}

const SECRET_KEY = /token|secret|password|passwd|credential|jwt|hash|authorization|api_?key|cookie/i;
const MAX_DEPTH = 6;
const MAX_ITEMS = 1000;

/**
 * A JSON-safe copy: functions and class instances (sockets, actor refs, timers) become a short
 * marker, keys that name secrets are redacted, Maps and Sets become objects and arrays, and depth
 * and length are bounded.
 */
export function safeView(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (depth >= MAX_DEPTH) return '[…]';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.slice(0, MAX_ITEMS).map((v) => safeView(v, depth + 1) ?? null);
  if (value instanceof Set) return [...value].slice(0, MAX_ITEMS).map((v) => safeView(v, depth + 1) ?? null);
  if (value instanceof Map) return safeObject(value.entries(), depth);
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== Object.prototype && proto !== null) {
    // An actor ref shows which actor it points at; anything else with a class is not data.
    const ref = value as { id?: unknown; getSnapshot?: unknown };
    if (typeof ref.getSnapshot === 'function' && typeof ref.id === 'string') return { actor: ref.id };
    return `[${(proto.constructor as { name?: string } | undefined)?.name ?? 'object'}]`;
  }
  return safeObject(Object.entries(value), depth);
}

function safeObject(entries: Iterable<[unknown, unknown]>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [key, v] of entries) {
    if (n++ >= MAX_ITEMS) break;
    const name = String(key);
    if (SECRET_KEY.test(name)) {
      out[name] = '[redacted]';
      continue;
    }
    const safe = safeView(v, depth + 1);
    if (safe !== undefined) out[name] = safe;
  }
  return out;
}
