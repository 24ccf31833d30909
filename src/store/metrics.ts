// The store's connections as gauges, read at scrape time: PostgreSQL's pool (open, idle, callers
// waiting for one). While the server is away `waiting` shows requests queued for a connection;
// each waits at most DB_CONNECT_TIMEOUT. SQLite has no pool: nothing is declared.
import type { MetricsFactory } from '../metrics/families.js';
import type { Store } from './db.js';

const STATES = ['total', 'idle', 'waiting'] as const;

export function watchStoreConnections(factory: MetricsFactory, store: Pick<Store, 'driver' | 'connections'>): void {
  if (store.driver !== 'postgres') return;
  const gauge = factory.gauge({
    name: 'hub_store_connections',
    help: 'PostgreSQL pool: connections open (total), idle, and callers waiting for one (waiting)',
    labels: { state: STATES },
    collect: () => {
      const counts = store.connections();
      if (!counts) return;
      for (const state of STATES) gauge.labels({ state }).set(counts[state]);
    },
  });
}
