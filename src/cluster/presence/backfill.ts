// The PRESENCE frames a node missed while Redis was away. A node decides presence alone then (it is
// stored), but its frames ride the bus, so the other nodes' dashboards and `isOnline` never hear them.
// When Redis is back each node reads from the store the agents whose row changed since the outage
// began and hands their PRESENCE to its own sockets (every node back-fills for itself): once at once,
// and once more when the others have had time to reconnect (until then, what they decide is not on
// the bus either). A frame carries the agent's whole state as stored, so a repeat is harmless; what
// must not happen is an older state overtaking a newer one, so an agent whose live PRESENCE passed
// this node after the read began is left out (the live one is at least as new as the read).
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { presenceDeliveries } from '../../delivery/deliver.js';
import type { Delivery } from '../../delivery/types.js';
import type { ClusterRepo } from '../../store/repositories/cluster.js';

/**
 * The store's times are written by the node that decided the change, on its own clock: the read
 * reaches this far before this node noticed the outage, for clock skew and for the other nodes
 * noticing it first. Too far only re-sends a state a dashboard already shows.
 */
const SKEW_MS = 30_000;

export interface BackfillDeps {
  repo: Pick<ClusterRepo, 'agentPresenceSince'>;
  clock: Clock;
  log: Logger;
  /** After Redis is back, how long the other nodes may take to reconnect (the second read then). */
  settleMs: number;
  /** Hands PRESENCE deliveries to this node's own sockets (and its `isOnline` view). */
  hand(deliveries: Delivery[]): void;
}

export function createPresenceBackfill(deps: BackfillDeps) {
  const { repo, clock, log } = deps;
  /** Where the next read starts (ISO): set when an outage begins, cleared once both reads are done. */
  let since: string | undefined;
  /** Per read under way: the agents whose live PRESENCE passed this node since it began. */
  const reads = new Set<Set<number>>();
  /** What the first read handed over, by agent: the second leaves out what did not change. */
  const handed = new Map<number, string>();
  let again: NodeJS.Timeout | undefined;

  async function pass(last: boolean): Promise<void> {
    if (since === undefined) return;
    const seen = new Set<number>();
    reads.add(seen);
    try {
      const rows = await repo.agentPresenceSince(since);
      const fresh = rows.filter((row) => {
        if (seen.has(row.id)) return false;
        const state = `${row.status}|${row.online}|${row.last_seen_at}|${row.last_report}`;
        if (handed.get(row.id) === state) return false;
        handed.set(row.id, state);
        return true;
      });
      const deliveries = presenceDeliveries(fresh, clock());
      if (deliveries.length > 0) deps.hand(deliveries);
      if (deliveries.length > 0 || last)
        log.info({ agents: deliveries.length, since }, 'handed over the presence changes the bus did not bring while Redis was away');
      if (last) {
        since = undefined;
        handed.clear();
      }
    } catch (err) {
      // `since` stays: the next time Redis comes back reads from the same outage's start.
      log.warn({ err }, 'could not read the presence changes made while Redis was away; dashboards catch up on the next change');
    } finally {
      reads.delete(seen);
    }
  }

  return {
    /** Redis went away: the next back-fill reads from here (the earliest start of outages not yet back-filled). */
    down(): void {
      clearTimeout(again);
      since ??= new Date(Date.parse(clock()) - SKEW_MS).toISOString();
    },
    /** Redis is back: back-fill now, and once more when the others have reconnected. */
    up(): void {
      clearTimeout(again);
      void pass(false);
      again = setTimeout(() => void pass(true), deps.settleMs).unref();
    },
    /** Every delivery list passing this node: a live PRESENCE beats what a read under way found. */
    seen(deliveries: readonly Pick<Delivery, 'type' | 'senderId'>[]): void {
      if (reads.size === 0) return;
      for (const d of deliveries) if (d.type === 'PRESENCE') for (const seen of reads) seen.add(d.senderId);
    },
    stop(): void {
      clearTimeout(again);
    },
  };
}
export type PresenceBackfill = ReturnType<typeof createPresenceBackfill>;
