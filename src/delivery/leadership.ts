// The leadership port: whether this node runs the hub's singletons (Butler, authorization expiry, the
// chat-platform connection). Features ask `isLeader()` and follow `acquired` / `lost`; none asks
// whether the hub is clustered. A single node leads from `start` to the end; cluster mode's lease
// (src/cluster/lease/) leads while it holds a PostgreSQL advisory lock, with a fencing epoch.
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

export interface Leadership {
  isLeader(): boolean;
  /** This node's fencing epoch while it leads (undefined on a single node: nothing to fence against). */
  epoch(): number | undefined;
  /**
   * The fence of a leader-only write, run inside its transaction: throws unless this node still
   * leads at the epoch it took. Absent where nobody else can lead (a single node).
   */
  readonly fence?: (trx: Transaction<Database>) => Promise<void>;
  /** Runs on each acquisition, in the order registered, each awaited before the next. */
  onAcquired(listener: (epoch: number | undefined) => void | Promise<void>): void;
  /** Runs at once when leadership is lost, in the order registered. */
  onLost(listener: (reason: string) => void): void;
  /** Starts competing (a single node: leads at once, and resolves once its listeners ran). */
  start(): Promise<void>;
  /** Gives leadership up (a clean stop hands it over at once). */
  stop(): Promise<void>;
}

/** Listeners of `acquired` and `lost`, for an implementation of the port. */
export function createLeadershipListeners() {
  const acquired: Array<(epoch: number | undefined) => void | Promise<void>> = [];
  const lost: Array<(reason: string) => void> = [];
  return {
    onAcquired: (listener: (typeof acquired)[number]) => void acquired.push(listener),
    onLost: (listener: (typeof lost)[number]) => void lost.push(listener),
    async acquired(epoch: number | undefined): Promise<void> {
      for (const listener of acquired) await listener(epoch);
    },
    lost(reason: string): void {
      for (const listener of lost) listener(reason);
    },
  };
}

/**
 * A single node: the only candidate, so always the leader; `start` runs the `acquired` listeners
 * once (Butler leads, the platform connection starts).
 */
export function alwaysLeader(): Leadership {
  const listeners = createLeadershipListeners();
  let started = false;
  return {
    isLeader: () => true,
    epoch: () => undefined,
    onAcquired: listeners.onAcquired,
    onLost: listeners.onLost,
    async start() {
      if (started) return;
      started = true;
      await listeners.acquired(undefined);
    },
    async stop() {},
  };
}
