// The hub's actors as a test reads them: the same redacted snapshots as GET /api/admin/actors
// (src/ops/inspection.ts), listed, fetched by id, and waited on; of one node, or of every running
// node of a cluster (each view then says which node it came from).
import type { ActorSnapshotView, Inspection } from '../ops/inspection.js';
import { toMs, type Duration } from './duration.js';
import { describeMatcher, matches, type Matcher } from './match.js';

/** An actor's snapshot; in a cluster, `node` names the node (NODE_ID) it lives on. */
export type TestActorView = ActorSnapshotView & { node?: string };

export interface TestActors {
  /** Every live actor's snapshot (router, connections, Butler, conversations, connector), or those of one kind. */
  list(filter?: { kind?: string }): TestActorView[];
  /** One actor's snapshot (in a cluster, of the first running node that has it), or undefined when no live actor has that id. */
  get(id: string): TestActorView | undefined;
  /**
   * Resolves with the actor's snapshot once it matches (`{state: 'idle'}`, or a predicate; in a cluster, on
   * any running node); throws after `timeout` (default 5 s) with the last snapshot seen and the trace when
   * one is recorded.
   */
  waitFor(id: string, matcher: Matcher<TestActorView>, options?: { timeout?: Duration }): Promise<TestActorView>;
}

/** Where actors are read: a node's inspection, and its NODE_ID in a cluster (undefined for a single hub). */
export interface ActorSource {
  readonly node: string | undefined;
  readonly inspection: Inspection;
}

/** Re-check at least this often: the connector's state is not an actor event the kit sees. */
const POLL_MS = 20;

export function createTestActors(options: {
  /** The sources read now (a stopped node is left out). */
  sources: () => ActorSource[];
  /** Registers a callback run on every actor event; returns its removal. */
  onActivity: (listener: () => void) => () => void;
  explain: () => string;
}): TestActors {
  const idsOf = (inspection: Inspection): string[] => {
    const found = new Set<string>();
    const walk = (value: unknown) => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      const record = value as Record<string, unknown>;
      if (typeof record['id'] === 'string' && typeof record['state'] === 'string') found.add(record['id']);
      Object.values(record).forEach(walk);
    };
    walk(inspection.summary({ limit: 100_000 }));
    return [...found];
  };
  const view = (source: ActorSource, id: string): TestActorView | undefined => {
    const snapshot = source.inspection.snapshot(id);
    return snapshot === undefined || source.node === undefined ? snapshot : { ...snapshot, node: source.node };
  };
  /** The actor's snapshot on every source that has it, in node order. */
  const views = (id: string): TestActorView[] =>
    options
      .sources()
      .map((source) => view(source, id))
      .filter((v): v is TestActorView => v !== undefined);
  const get = (id: string) => views(id)[0];
  const ids = (): string[] => [...new Set(options.sources().flatMap((source) => idsOf(source.inspection)))];

  return {
    list(filter = {}) {
      const all = options.sources().flatMap((source) =>
        idsOf(source.inspection)
          .map((id) => view(source, id))
          .filter((v): v is TestActorView => v !== undefined),
      );
      return filter.kind === undefined ? all : all.filter((v) => v.kind === filter.kind);
    },
    get,
    waitFor(id, matcher, { timeout = 5000 } = {}) {
      const ms = toMs(timeout, 'timeout');
      return new Promise((resolve, reject) => {
        let last: TestActorView | undefined;
        const check = () => {
          const seen = views(id);
          const matching = seen.find((v) => matches(v, matcher));
          last = matching ?? seen[0];
          if (matching === undefined) return;
          done();
          resolve(matching);
        };
        const poll = setInterval(check, POLL_MS);
        const stopListening = options.onActivity(check);
        const timer = setTimeout(() => {
          done();
          const explained = options.explain();
          const lastSeen = last === undefined ? `no live actor has the id ${id}` : `its last snapshot: ${JSON.stringify(last)}`;
          const known = last === undefined ? `\nlive actors: ${ids().join(', ') || '(none)'}` : '';
          reject(new Error(`actor ${id} did not match ${describeMatcher(matcher)} within ${ms} ms; ${lastSeen}${known}${explained ? `\n${explained}` : ''}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          clearInterval(poll);
          stopListening();
        };
        check();
      });
    },
  };
}
