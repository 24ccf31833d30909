// Cluster mode's metrics: which node this is, the bus (batches and control messages published and
// received, lag from commit on one node to hand-over on another, bytes, messages dropped for a bad
// seal), reads of the store for what the bus did not bring, how far behind the commits this node
// hands frames over, Redis outages, leadership, and how many nodes are alive.
import type { MetricsFactory } from '../metrics/families.js';

export interface ClusterMeter {
  published(kind: 'batch' | 'control', bytes: number): void;
  /** A publish that could not be made (Redis away). */
  publishFailed(kind: 'batch' | 'control'): void;
  received(kind: 'batch' | 'control', bytes: number): void;
  /** A message on the bus dropped: no seal, a forged one, too old or too new, or replayed. */
  refused(reason: 'unsealed' | 'forged' | 'stale' | 'replayed'): void;
  /** Seconds from the commit on another node to the hand-over here. */
  lag(seconds: number): void;
  /** Rows handed over from the store (the bus did not bring them), one call per hand-over. */
  filled(rows: number): void;
  redisOutage(): void;
  watch(read: { up(): boolean; leader(): boolean; nodes(): number; behindSeconds(): number }): void;
}

export function createClusterMeter(factory: MetricsFactory, nodeId: string): ClusterMeter {
  factory
    .gauge({ name: 'hub_node_info', help: 'This hub node (value 1), by its NODE_ID', labels: { node_id: [nodeId] } })
    .labels({ node_id: nodeId })
    .set(1);
  const kinds = ['batch', 'control'];
  const published = factory.counter({ name: 'hub_cluster_bus_published_total', help: 'Messages this node published on the bus', labels: { kind: kinds } });
  const publishedBytes = factory.counter({ name: 'hub_cluster_bus_published_bytes_total', help: 'Bytes this node published on the bus' });
  const failed = factory.counter({
    name: 'hub_cluster_bus_publish_failures_total',
    help: 'Publishes that failed while Redis was away (the others read those batches from the store)',
    labels: { kind: kinds },
  });
  const received = factory.counter({ name: 'hub_cluster_bus_received_total', help: 'Messages received from other nodes', labels: { kind: kinds } });
  const receivedBytes = factory.counter({ name: 'hub_cluster_bus_received_bytes_total', help: 'Bytes received from other nodes' });
  const lag = factory.histogram({
    name: 'hub_cluster_bus_lag_seconds',
    help: "From a batch's commit on another node to its hand-over to this node's sockets",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  });
  const refusedBy = factory.counter({
    name: 'hub_cluster_bus_refused_total',
    help: 'Messages on the bus dropped for their seal: unsealed, forged (wrong key), stale (time too far off) or replayed',
    labels: { reason: ['unsealed', 'forged', 'stale', 'replayed'] },
  });
  const fills = factory.counter({
    name: 'hub_cluster_gap_fills_total',
    help: 'Hand-overs of rows read from the store because the bus did not bring them (continuous while Redis is away)',
  });
  const fillRows = factory.counter({ name: 'hub_cluster_gap_fill_rows_total', help: 'Rows handed over from the store instead of the bus' });
  const outages = factory.counter({ name: 'hub_cluster_redis_outages_total', help: 'Times Redis became unreachable' });
  let read = { up: () => false, leader: () => false, nodes: () => 0, behindSeconds: () => 0 };
  const behind = factory.gauge({
    name: 'hub_cluster_behind_seconds',
    help: 'How long this node has known of a commit it has not handed to its sockets yet (0: caught up)',
    collect: () => behind.set(read.behindSeconds()),
  });
  const up = factory.gauge({ name: 'hub_cluster_redis_up', help: '1 while both Redis connections are ready', collect: () => up.set(read.up() ? 1 : 0) });
  const leader = factory.gauge({
    name: 'hub_cluster_leader',
    help: "1 while this node holds the singletons' lease (Butler, authorization expiry, the platform connection)",
    collect: () => leader.set(read.leader() ? 1 : 0),
  });
  const nodes = factory.gauge({ name: 'hub_cluster_nodes', help: 'Live nodes of the cluster, this one included', collect: () => nodes.set(read.nodes()) });
  const kindOf = { batch: { p: published.labels({ kind: 'batch' }), f: failed.labels({ kind: 'batch' }), r: received.labels({ kind: 'batch' }) } };
  const control = { p: published.labels({ kind: 'control' }), f: failed.labels({ kind: 'control' }), r: received.labels({ kind: 'control' }) };
  const pick = (kind: 'batch' | 'control') => (kind === 'batch' ? kindOf.batch : control);
  return {
    published(kind, bytes) {
      pick(kind).p.inc();
      publishedBytes.inc(bytes);
    },
    publishFailed(kind) {
      pick(kind).f.inc();
    },
    refused: (reason) => refusedBy.labels({ reason }).inc(),
    received(kind, bytes) {
      pick(kind).r.inc();
      receivedBytes.inc(bytes);
    },
    lag: (seconds) => lag.observe(seconds),
    filled(rows) {
      fills.inc();
      fillRows.inc(rows);
    },
    redisOutage: () => outages.inc(),
    watch(next) {
      read = next;
    },
  };
}
