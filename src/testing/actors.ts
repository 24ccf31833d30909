// The hub's actors as a test reads them: the same redacted snapshots as GET /api/admin/actors
// (src/ops/inspection.ts), listed, fetched by id, and waited on.
import type { ActorSnapshotView, Inspection } from '../ops/inspection.js';
import { toMs, type Duration } from './duration.js';
import { describeMatcher, matches, type Matcher } from './match.js';

export interface TestActors {
  /** Every live actor's snapshot (router, connections, Butler, conversations, connector), or those of one kind. */
  list(filter?: { kind?: string }): ActorSnapshotView[];
  /** One actor's snapshot, or undefined when no live actor has that id. */
  get(id: string): ActorSnapshotView | undefined;
  /**
   * Resolves with the actor's snapshot once it matches (`{state: 'idle'}`, or a predicate); throws after
   * `timeout` (default 5 s) with the last snapshot seen and the trace when one is recorded.
   */
  waitFor(id: string, matcher: Matcher<ActorSnapshotView>, options?: { timeout?: Duration }): Promise<ActorSnapshotView>;
}

/** Re-check at least this often: the connector's state is not an actor event the kit sees. */
const POLL_MS = 20;

export function createTestActors(options: {
  inspection: () => Inspection;
  /** Registers a callback run on every actor event; returns its removal. */
  onActivity: (listener: () => void) => () => void;
  explain: () => string;
}): TestActors {
  const ids = (): string[] => {
    const found = new Set<string>();
    const walk = (value: unknown) => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      const record = value as Record<string, unknown>;
      if (typeof record['id'] === 'string' && typeof record['state'] === 'string') found.add(record['id']);
      Object.values(record).forEach(walk);
    };
    walk(options.inspection().summary({ limit: 100_000 }));
    return [...found];
  };
  const get = (id: string) => options.inspection().snapshot(id);

  return {
    list(filter = {}) {
      const views = ids()
        .map(get)
        .filter((v): v is ActorSnapshotView => v !== undefined);
      return filter.kind === undefined ? views : views.filter((v) => v.kind === filter.kind);
    },
    get,
    waitFor(id, matcher, { timeout = 5000 } = {}) {
      const ms = toMs(timeout, 'timeout');
      return new Promise((resolve, reject) => {
        let last: ActorSnapshotView | undefined;
        const check = () => {
          last = get(id);
          if (last === undefined || !matches(last, matcher)) return;
          done();
          resolve(last);
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
