// Readiness: the hub is ready when it is not shutting down and its store answers with every
// migration applied. Each check waits for one small query under a time limit, so a store that
// hangs makes the hub unready instead of leaving the probe waiting; probes that come while that
// query is still out share it, so a silent store never piles up queries (each would hold one of
// the connections the writer needs). Changes of state are logged once (warn when it goes unready,
// info when it comes back), not per probe.
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';

export type Readiness = { ready: true; degraded?: string } | { ready: false; reason: string };

export interface ReadinessDeps {
  store: Pick<Store, 'migrations'>;
  /** Names of the migrations this hub needs (all of them were applied at start). */
  migrations: readonly string[];
  stopping(): boolean;
  /** Cluster mode: why the node serves only its own sockets for now (Redis away), if it does. */
  degraded?(): string | undefined;
  logger: Logger;
  timeoutMs?: number;
}

const TIMEOUT_MS = 2000;

export function createReadiness(deps: ReadinessDeps) {
  const timeoutMs = deps.timeoutMs ?? TIMEOUT_MS;
  let lastReason: string | undefined;
  /** The query out now, if one is: later probes wait for it instead of asking again. */
  let inFlight: Promise<Array<{ name: string }>> | undefined;

  const ask = () => {
    if (inFlight) return inFlight;
    const query = deps.store.migrations.applied();
    inFlight = query;
    const done = () => {
      if (inFlight === query) inFlight = undefined;
    };
    query.then(done, done);
    return query;
  };

  async function appliedMigrations(): Promise<Set<string>> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const rows = await Promise.race([ask(), timeout]);
      return new Set(rows.map((r) => r.name));
    } finally {
      clearTimeout(timer);
    }
  }

  async function evaluate(): Promise<Readiness & { err?: unknown }> {
    if (deps.stopping()) return { ready: false, reason: 'the hub is shutting down' };
    let applied: Set<string>;
    try {
      applied = await appliedMigrations();
    } catch (err) {
      return { ready: false, reason: 'the store is unreachable', err };
    }
    const missing = deps.migrations.filter((name) => !applied.has(name));
    if (missing.length > 0) return { ready: false, reason: `migrations not applied: ${missing.join(', ')}` };
    const degraded = deps.degraded?.();
    return degraded ? { ready: true, degraded } : { ready: true };
  }

  return {
    async check(): Promise<Readiness> {
      const { err, ...result } = await evaluate();
      const reason = result.ready ? undefined : result.reason;
      if (reason !== lastReason) {
        if (reason === undefined) deps.logger.info({ was: lastReason }, 'readiness: ready again');
        else deps.logger.warn({ reason, err }, 'readiness: not ready');
        lastReason = reason;
      }
      return result;
    },
  };
}
export type ReadinessCheck = ReturnType<typeof createReadiness>;
