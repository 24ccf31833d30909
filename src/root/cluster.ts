// The node's ports in cluster mode (REDIS_URL set): the bus, presence and committed batches on Redis
// (cluster/node.ts), the leadership on a PostgreSQL lease, the ledger on Redis. The node connects
// to Redis here (a node that cannot reach it at start does not start) and starts ordering and
// beating once the core exists (`attach`). Without REDIS_URL none of this is loaded.
import { createBusSeal } from '../cluster/bus/busSeal.js';
import { nodeSummary } from '../cluster/inspection.js';
import { createLeaseLeadership } from '../cluster/lease/leadership.js';
import { createClusterMeter } from '../cluster/metrics.js';
import { createClusterNode } from '../cluster/node.js';
import type { ClusterConfig, Config } from '../config.js';
import type { NodePorts, NodePortsOptions } from './nodePorts.js';

export async function createClusterPorts(options: NodePortsOptions & { config: Config & { cluster: ClusterConfig } }): Promise<NodePorts> {
  const { config, logger, clock, shutdown } = options;
  const db = config.db;
  if (db.driver !== 'postgres') throw new Error('cluster mode needs PostgreSQL');
  const meter = createClusterMeter(options.metrics.factory, config.cluster.nodeId);
  const seal = createBusSeal({ secret: config.cluster.secret ?? options.jwtSecret, nodeId: config.cluster.nodeId });
  const node = await createClusterNode({ config: config.cluster, logger, clock, meter, repo: options.repos.cluster, seal });
  await node.connect();
  shutdown.add('close the cluster link', () => node.close());
  const log = logger.child({ component: 'cluster', node: node.nodeId });

  const { leadership, lease } = createLeaseLeadership({ nodeId: node.nodeId, databaseUrl: db.url, logger, clock });
  // First of the listeners: the features follow (root/features.ts `followLeadership`).
  leadership.onAcquired((epoch) => log.info({ epoch }, 'this node leads: it runs Butler, authorization expiry and the chat-platform connection'));
  leadership.onLost((reason) => log.warn({ reason }, 'this node no longer leads: Butler and the chat-platform connection stop here'));

  return {
    bus: node.bus,
    leadership,
    ledger: node.ledger,
    presence: () => node.presence.port,
    online: () => node.presence,
    handoff: node.handoff,
    admission: node.presence,
    sharedPresence: true,
    redis: node.link.commands,
    restartOrder: node.restart,
    async attach(core) {
      await node.attach({ ...core, table: core.addresses, isLeader: leadership.isLeader });
      meter.watch({
        up: () => node.link.up,
        leader: () => lease.isLeader,
        nodes: () => node.status().nodes.length,
        behindSeconds: () => node.behindSeconds(),
      });
      core.inspection.add({ name: 'node', summary: () => nodeSummary(node, lease), snapshot: () => undefined });
      shutdown.add('release the lease', () => leadership.stop());
      shutdown.add('leave the cluster', () => node.presence.leave());
    },
    degraded: () => node.degraded(),
  };
}
