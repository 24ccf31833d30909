// The store's side of the bus: durable messages (delivery/bus.ts) are written to the bus journal before
// they are said on Redis, and every node reads the journal once a second for what it has not heard.
// Redis pub/sub says a message once, to whoever listens then: without this, a token revoked through one
// node while another was cut off from Redis would leave that node's sockets open for good.
//
// Journal ids come from a sequence, so a row can commit after one with a higher id: what has been heard
// is tracked as a watermark (every id up to it heard or given up on) plus the ids heard above it, and a
// hole below a heard id is waited for (GAP_MS) before it is skipped as an id that never committed.
import type { Logger } from 'pino';
import type { ClusterRepo, JournalRow } from '../../store/repositories/cluster.js';

export interface BusJournalDeps {
  nodeId: string;
  repo: Pick<ClusterRepo, 'journal' | 'journalAfter' | 'journalNewest' | 'pruneJournal'>;
  /** Hands a message another node wrote to this node's subscribers. */
  deliver(kind: string, body: unknown): void;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Milliseconds since the epoch (journal rows' write time, pruning). */
  now?: () => number;
}

/** Rows read per poll. */
const PAGE = 500;
/** A hole in the ids this long is an id that never committed (a failed write used it up). */
const GAP_MS = 10_000;
/** Rows are kept this long: a node away for longer has restarted since, and starts after them. */
const KEEP_MS = 60 * 60_000;
/** Polls between prunes (an hour's rows pruned a few times an hour by each node). */
const PRUNE_EVERY = 600;

export function createBusJournal(deps: BusJournalDeps) {
  const now = deps.now ?? Date.now;
  /** Every id up to this was heard (or given up on). */
  let through = 0;
  /** Ids above `through` heard already. */
  const heardAbove = new Set<number>();
  /** When the hole just above `through` was first seen (undefined: no hole). */
  let holeSince: number | undefined;
  let started = false;
  let polls = 0;
  let failing = false;
  /** A read is under way (a slow store must not stack reads up). */
  let reading = false;

  /**
   * Moves the watermark over the ids heard. `afterRead`: the journal was just read, so a hole that has
   * outlived GAP_MS of successful reads is ids that never committed (never decided while the store is away).
   */
  function advance(afterRead: boolean): void {
    const from = through;
    while (heardAbove.delete(through + 1)) through++;
    // A new hole (or none) starts its own wait.
    if (through !== from || heardAbove.size === 0) holeSince = undefined;
    if (heardAbove.size === 0) return;
    if (!afterRead) return;
    holeSince ??= now();
    if (now() - holeSince < GAP_MS) return;
    through = Math.min(...heardAbove) - 1;
    holeSince = undefined;
    advance(false);
  }

  /** Marks `id` heard; false when it was heard before (or lies below the start). */
  function hear(id: number): boolean {
    if (id <= through || heardAbove.has(id)) return false;
    heardAbove.add(id);
    advance(false);
    return true;
  }

  return {
    /** Starts after the newest row: what was said before this node started is not for it. */
    async start(): Promise<void> {
      through = Math.max(through, await deps.repo.journalNewest());
      started = true;
    },

    /** Writes a durable message; its journal id, or undefined when the store refused it (logged). */
    async write(kind: string, body: string): Promise<number | undefined> {
      try {
        const id = await deps.repo.journal({ node: deps.nodeId, kind, body, at: now() });
        hear(id);
        return id;
      } catch (err) {
        deps.log.warn({ err, kind }, 'a durable bus message could not be kept in the store: it is said on Redis only');
        return undefined;
      }
    },

    /** A durable message heard on Redis: true the first time its id is heard here. */
    heard: (id: number): boolean => hear(id),

    /** Reads what is new in the journal and hands over what this node has not heard. */
    async poll(): Promise<void> {
      if (!started || reading) return;
      reading = true;
      let rows: JournalRow[];
      try {
        rows = await deps.repo.journalAfter(through, PAGE);
        if (++polls % PRUNE_EVERY === 0) await deps.repo.pruneJournal(now() - KEEP_MS);
      } catch (err) {
        reading = false;
        // The store is away; the next poll tries again. Said once per outage.
        if (!failing) deps.log.warn({ err }, 'could not read the bus journal: durable bus messages wait for the store');
        failing = true;
        return;
      }
      reading = false;
      if (failing) deps.log.info({}, 'reading the bus journal again');
      failing = false;
      for (const row of rows) {
        if (!hear(row.id) || row.node === deps.nodeId) continue;
        let body: unknown;
        try {
          body = JSON.parse(row.body);
        } catch {
          deps.log.warn({ id: row.id, kind: row.kind }, 'ignored a bus journal row that is not JSON');
          continue;
        }
        deps.deliver(row.kind, body);
      }
      advance(true);
    },

    /** For inspection and tests: the watermark and the ids heard above it. */
    state: () => ({ through, heardAbove: heardAbove.size }),
  };
}
export type BusJournal = ReturnType<typeof createBusJournal>;
