// This process's ports to the rest of the hub, built once: the bus (delivery/bus.ts), the leadership
// (delivery/leadership.ts), the ledger, presence and the order in which committed batches are handed
// to sockets. A single node gets the in-process defaults; REDIS_URL makes it a node of a cluster, and
// root/cluster.ts supplies the Redis/PostgreSQL implementations (loaded only then: a single node never
// loads ioredis). This is the one place that asks which; everything else uses the ports.
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { OrderedCommits } from '../store/batchWriter.js';
import { createLoopbackBus, defineBusMessage } from '../delivery/bus.js';
import { alwaysLeader } from '../delivery/leadership.js';
import { emptyLedger } from '../delivery/ledger.js';
import { socketOnline, socketPresence } from '../delivery/presence.js';
import type { Inspection } from '../ops/inspection.js';
import type { Core } from './core.js';
import type { NodePorts, NodePortsOptions } from './nodePorts.js';

/** Whether the store orders commits across every node's writers (cluster mode's visibility order). */
export const ordersCommitsAcrossNodes = (config: Config): OrderedCommits | undefined => (config.cluster === undefined ? undefined : 'statement');

export async function createNodePorts(options: NodePortsOptions): Promise<NodePorts> {
  const { config } = options;
  if (config.cluster) {
    const { createClusterPorts } = await import('./cluster.js');
    return createClusterPorts({ ...options, config: { ...config, cluster: config.cluster } });
  }
  return singleNodePorts(options.clock);
}

/** One node alone: an in-process bus nobody else is on, always the leader, presence from its sockets. */
export function singleNodePorts(clock: Clock): NodePorts {
  return {
    bus: createLoopbackBus().node(),
    leadership: alwaysLeader(),
    ledger: () => emptyLedger,
    presence: (queue) => socketPresence({ presence: queue, clock }),
    online: socketOnline,
    sharedPresence: false,
    restartOrder() {},
    attach: async () => undefined,
    degraded: () => undefined,
  };
}

/** "The ids restarted" (development reset on another node): the order starts over, the pipeline too. */
export const idsRestartedMessage = defineBusMessage('reset', z.object({}));

/** After a development reset here: this node's order starts over, and the other nodes are told. */
export function restartedIds(ports: Pick<NodePorts, 'restartOrder' | 'bus'>): void {
  ports.restartOrder();
  ports.bus.publish(idsRestartedMessage, {});
}

/** A restart another node announced: this node's order starts over, and its pipeline's ids too. */
export function followRestarts(ports: Pick<NodePorts, 'restartOrder' | 'bus'>, pipeline: { reset(): void }): () => void {
  return ports.bus.subscribe(idsRestartedMessage, () => {
    ports.restartOrder();
    pipeline.reset();
  });
}

/** Wires the ports to the core once it and the inspection exist, and starts what runs against them. */
export async function attachNode(ports: NodePorts, parts: { core: Core; inspection: Inspection }): Promise<void> {
  const { core, inspection } = parts;
  followRestarts(ports, core.pipeline);
  await ports.attach({
    deliver: core.deliver,
    round: (fn) => core.sendBatch.run(fn),
    presence: (userId, patch) => core.pipeline.presence(userId, patch),
    addresses: core.addresses,
    settled: () => core.pipeline.settled(),
    inspection,
  });
}
