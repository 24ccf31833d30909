// Telemetry retention (MESSAGE_RETENTION): a hub that keeps every report forever eventually slows
// and fills its disk. In the background, telemetry rows (TelemetryTypes: SYSTEM_LOG, WEATHER_UPDATE,
// CODE_REVIEW, SECURITY_ALERT) stored longer ago than the retention are deleted, oldest first, a
// small batch per type at a time; conversations (CHAT, AUTH_REQUEST rows) are never pruned. On
// SQLite each batch rides the writer thread's next group commit, so pruning takes no lock against
// message writes and adds no fsync of its own.
import type { Logger } from 'pino';
import { systemTimers, type Clock, type TimerHandle, type Timers } from '../clock.js';
import type { MetricsFactory } from '../metrics/families.js';
import { TelemetryTypes } from '../protocol/messages.js';
import type { Store } from '../store/db.js';

/** The row types retention prunes; every other type is kept forever. */
export const PRUNED_TYPES: readonly string[] = TelemetryTypes;

export interface RetentionDeps {
  store: Pick<Store, 'pruneMessages'>;
  /** Telemetry older than this is pruned. */
  retentionMs: number;
  clock: Clock;
  /** Runs the sweeps (the hub's timers: a test moves them). */
  timers?: Timers;
  logger: Pick<Logger, 'info' | 'warn'>;
  metrics: MetricsFactory;
  /** Rows per type per batch (default 500): one batch is a few milliseconds of the writer's time. */
  batchRows?: number;
  /**
   * Between the starts of two sweeps (default 60 s); the first runs after `firstDelayMs` (5 s). A sweep
   * still running when the next is due is followed by one more at once (never more than one waits).
   */
  intervalMs?: number;
  firstDelayMs?: number;
}

export interface Retention {
  /** Prunes until no type has an expired row left; resolves with the rows deleted by type. */
  sweep(): Promise<Record<string, number>>;
  /** No more sweeps; waits for the batch in progress. */
  stop(): Promise<void>;
}

export function startRetention(deps: RetentionDeps): Retention {
  const batchRows = deps.batchRows ?? 500;
  const intervalMs = deps.intervalMs ?? 60_000;
  const timers = deps.timers ?? systemTimers;
  const pruned = deps.metrics.counter({
    name: 'hub_retention_pruned_rows_total',
    help: 'Telemetry rows deleted because they were older than MESSAGE_RETENTION',
    labels: { type: PRUNED_TYPES },
  });
  const failures = deps.metrics.counter({ name: 'hub_retention_failures_total', help: 'Retention sweeps that failed (retried at the next sweep)' });
  let stopped = false;
  let first: TimerHandle | undefined;
  let every: TimerHandle | undefined;
  /** A sweep fell due while one was running: one more runs when it ends. */
  let behind = false;
  let running: Promise<Record<string, number>> | undefined;

  async function prune(): Promise<Record<string, number>> {
    const before = new Date(Date.parse(deps.clock()) - deps.retentionMs).toISOString();
    const total: Record<string, number> = Object.fromEntries(PRUNED_TYPES.map((type) => [type, 0]));
    let types = PRUNED_TYPES;
    // A type whose batch came back full may have more; the others are done for this sweep.
    while (types.length > 0 && !stopped) {
      const result = await deps.store.pruneMessages({ types, before, limit: batchRows });
      for (const [type, rows] of Object.entries(result)) {
        total[type] = (total[type] ?? 0) + rows;
        if (rows > 0) pruned.labels({ type }).inc(rows);
      }
      types = types.filter((type) => (result[type] ?? 0) >= batchRows);
    }
    const rows = Object.values(total).reduce((a, b) => a + b, 0);
    if (rows > 0) deps.logger.info({ rows, before }, 'pruned telemetry older than MESSAGE_RETENTION');
    return total;
  }

  function sweep(): Promise<Record<string, number>> {
    running ??= prune().finally(() => (running = undefined));
    return running;
  }

  // The cadence is kept by the timers, not by the end of each sweep: the cut-off of a sweep is the
  // time it starts, so a test that moves simulated time past the retention gets a sweep that late.
  function due(): void {
    if (stopped) return;
    if (running) {
      behind = true;
      return;
    }
    sweep()
      .catch((err: unknown) => {
        failures.inc();
        deps.logger.warn({ err }, 'pruning old telemetry failed; retrying at the next sweep');
      })
      .finally(() => {
        if (!behind) return;
        behind = false;
        due();
      });
  }
  first = timers.setTimeout(() => {
    first = undefined;
    if (stopped) return;
    every = timers.setInterval(due, intervalMs);
    // Retention alone never keeps the process alive.
    every.unref?.();
    due();
  }, deps.firstDelayMs ?? 5_000);
  first.unref?.();

  return {
    sweep,
    async stop() {
      stopped = true;
      timers.clearTimeout(first);
      timers.clearInterval(every);
      await running?.catch(() => undefined);
    },
  };
}
