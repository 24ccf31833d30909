// The cluster stage (REDIS_URL set): this node's link to the others, built before the core (the
// core delivers through it) and attached once the core and the features exist; and the lease that
// picks the one node running the singletons (Butler, authorization expiry, the platform connection).
// Without REDIS_URL none of this is loaded.
import type { Logger } from 'pino';
import type { Butler } from '../butler/index.js';
import type { Clock } from '../clock.js';
import { createBusSeal } from '../cluster/busSeal.js';
import { nodeSource } from '../cluster/inspection.js';
import { createLease } from '../cluster/lease.js';
import { createClusterMeter } from '../cluster/metrics.js';
import { createClusterNode, type ClusterNode } from '../cluster/node.js';
import type { Config, ClusterConfig } from '../config.js';
import type { Connector } from '../connector/index.js';
import type { Metrics } from '../metrics/registry.js';
import type { Inspection } from '../ops/inspection.js';
import type { Core } from './core.js';
import type { Repos } from './storage.js';

export interface ClusterStageOptions {
  config: Config & { cluster: ClusterConfig };
  repos: Repos;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** The JWT secret (every node shares it): the bus's key is derived from it when CLUSTER_SECRET is unset. */
  jwtSecret: string;
}

/** Builds the node and connects it to Redis (a node that cannot reach Redis at start does not start). */
export async function createClusterStage(options: ClusterStageOptions) {
  const { config, logger, clock } = options;
  const meter = createClusterMeter(options.metrics.factory, config.cluster.nodeId);
  const seal = createBusSeal({ secret: config.cluster.secret ?? options.jwtSecret, nodeId: config.cluster.nodeId });
  const node = await createClusterNode({ config: config.cluster, logger, clock, meter, repo: options.repos.cluster, seal });
  await node.connect();
  return { node, meter };
}

export interface ClusterAttachOptions {
  config: Config & { cluster: ClusterConfig };
  node: ClusterNode;
  meter: ReturnType<typeof createClusterMeter>;
  core: Core;
  butler: Butler;
  connector: Connector;
  inspection: Inspection;
  clock: Clock;
  logger: Logger;
}

/** Starts ordering and beating, and competes for the lease; returns the lease (stopped on shutdown). */
export async function attachCluster(options: ClusterAttachOptions) {
  const { config, node, core, butler, connector, logger } = options;
  const log = logger.child({ component: 'cluster', node: node.nodeId });
  const db = config.db;
  if (db.driver !== 'postgres') throw new Error('cluster mode needs PostgreSQL');

  const lease = createLease({
    name: 'singletons',
    nodeId: node.nodeId,
    databaseUrl: db.url,
    logger,
    clock: options.clock,
    async onAcquired(epoch) {
      log.info({ epoch }, 'this node leads: it runs Butler, authorization expiry and the chat-platform connection');
      await butler.lead();
      await endOrphanedStreams();
      await connector.start();
    },
    onLost(reason) {
      log.warn({ reason }, 'this node no longer leads: Butler and the chat-platform connection stop here');
      butler.standby('the hub node running Butler lost its lease; ask again in a moment');
      connector.stop();
    },
  });

  /** Answers the previous leader was streaming when it stopped: ended with what they said and a note. */
  async function endOrphanedStreams(): Promise<void> {
    let orphans: Awaited<ReturnType<ClusterNode['takeOrphanedStreams']>> = [];
    try {
      orphans = await node.takeOrphanedStreams();
    } catch (err) {
      return log.warn({ err }, "could not read the previous leader's open streams");
    }
    for (const o of orphans) {
      const envelope = { target_id: o.targetId, conversation_id: o.conversationId ?? undefined, stream_id: o.streamId };
      const note = '[This answer was cut off: the hub node writing it stopped. Please ask again.]';
      core.pipeline.submit(butler.principal, { type: 'CHAT', payload: o.text ? `${o.text}\n\n${note}` : note, ...envelope });
      core.pipeline.submit(butler.principal, { type: 'CHAT_STREAM_END', payload: '', ...envelope });
    }
    if (orphans.length > 0) log.warn({ streams: orphans.length }, 'ended the answers the previous leader was streaming when it stopped');
  }

  await node.attach({
    butlerId: butler.principal.id,
    deliver: (deliveries) => core.router.send({ type: 'DELIVER', deliveries }),
    round: (fn) => core.sendBatch.run(fn),
    presence: (userId, patch) => core.pipeline.presence(userId, patch),
    table: () => core.router.getSnapshot().context.table,
    closeUser(userId, code, reason) {
      core.directory.forget(userId);
      core.router.send({ type: 'CLOSE_USER', userId, code, reason });
    },
    closeAll(code, reason) {
      core.directory.clear();
      core.router.send({ type: 'CLOSE_ALL', code, reason });
    },
    decided: (actionId) => void butler.actOnDecision(actionId).catch((err: unknown) => log.error({ err, actionId }, 'could not act on a forwarded decision')),
    connectorChanged: () => void connector.reload().catch((err: unknown) => log.error({ err }, 'could not reload the connector')),
    reset: () => core.pipeline.reset(),
    settled: () => core.pipeline.settled(),
    isLeader: () => lease.isLeader,
  });
  options.meter.watch({
    up: () => node.link.up,
    leader: () => lease.isLeader,
    nodes: () => node.status().nodes.length,
    behindSeconds: () => node.behindSeconds(),
  });
  options.inspection.add(nodeSource(node, lease));
  lease.start();
  return lease;
}
