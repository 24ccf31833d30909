// The `node` section of actor inspection in cluster mode: which node answered, whether it leads,
// the other live nodes, Redis, and where this node stands in the visibility order. The composition
// root plugs it into the inspection (root/cluster.ts).
import type { ClusterNode } from './node.js';

export function nodeSummary(
  node: Pick<ClusterNode, 'nodeId' | 'status'> & { presence: { readonly onlineCount: number } },
  lease: { readonly isLeader: boolean; readonly epoch: number | undefined },
) {
  const status = node.status();
  return {
    id: node.nodeId,
    cluster: true,
    leader: lease.isLeader,
    lease_epoch: lease.epoch ?? null,
    peers: status.nodes.filter((n) => n.nodeId !== node.nodeId).map((n) => n.nodeId),
    nodes: status.nodes.map((n) => ({ id: n.nodeId, last_beat_ms_ago: n.lastBeatMsAgo })),
    // Agents this node sees ONLINE (from every PRESENCE passing it): equal on every node once presence has converged.
    online_agents: node.presence.onlineCount,
    redis: { status: status.redis, reason: status.reason ?? null },
    bus: {
      delivered_through: status.gate.through,
      newest_commit_known: status.gate.known,
      waiting_batches: status.gate.pending,
      gaps_filled: status.gate.fills,
    },
  };
}
