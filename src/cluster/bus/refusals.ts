// Messages on Redis that fail their seal: counted each, logged at most once per interval with the
// counts by reason, so a stranger flooding the channels cannot flood the log.
import type { Logger } from 'pino';
import type { Refusal } from './busSeal.js';
import type { ClusterMeter } from '../metrics.js';

/** Messages on the bus that fail their seal are logged at most once per this interval (with a count). */
const REFUSAL_LOG_MS = 60_000;

export function createRefusalLog(deps: { meter: Pick<ClusterMeter, 'refused'>; log: Pick<Logger, 'warn'> }) {
  /** Refusals since the last log line, by reason. */
  const refusals = new Map<Refusal, number>();
  let refusalLoggedAt = -Infinity;
  return function refused(channel: string, reason: Refusal, bytes: number): void {
    deps.meter.refused(reason);
    refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    const t = performance.now();
    if (t - refusalLoggedAt < REFUSAL_LOG_MS) return;
    refusalLoggedAt = t;
    const counts = Object.fromEntries(refusals);
    refusals.clear();
    deps.log.warn(
      { channel, reasons: counts, bytes },
      'dropped messages on the cluster bus that failed their seal: something without the cluster secret publishes on its channels, or a node has another CLUSTER_SECRET (or JWT_SECRET)',
    );
  };
}
