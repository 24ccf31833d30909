// The leadership port (delivery/leadership.ts) on the lease: this node leads while it holds the
// PostgreSQL lease, fences leader-only writes with the lease's epoch, and tells the port's
// listeners when it acquires and loses it.
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { createLeadershipListeners, type Leadership } from '../../delivery/leadership.js';
import { createLease } from './lease.js';

export interface LeaseLeadershipDeps {
  nodeId: string;
  databaseUrl: string;
  logger: Logger;
  clock: Clock;
}

export function createLeaseLeadership(deps: LeaseLeadershipDeps) {
  const listeners = createLeadershipListeners();
  const lease = createLease({
    name: 'singletons',
    nodeId: deps.nodeId,
    databaseUrl: deps.databaseUrl,
    logger: deps.logger,
    clock: deps.clock,
    onAcquired: (epoch) => listeners.acquired(epoch),
    onLost: (reason) => listeners.lost(reason),
  });
  const leadership: Leadership = {
    isLeader: () => lease.isLeader,
    epoch: () => lease.epoch,
    fence: (trx) => lease.assertCurrent(trx, lease.epoch ?? -1),
    onAcquired: listeners.onAcquired,
    onLost: listeners.onLost,
    start: async () => lease.start(),
    stop: () => lease.stop(),
  };
  return { leadership, lease };
}
