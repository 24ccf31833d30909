// Several nodes' buses for a feature's test of its own bus messages, on either transport with the
// same test code: the in-process loopback bus a single node uses, or the Redis bus of cluster mode
// (real Redis links, sealed, on channels of their own so tests share the Redis without hearing each
// other).
import pino from 'pino';
import { createBusSeal } from '../../src/cluster/bus/busSeal.js';
import { createRedisLink } from '../../src/cluster/bus/redis.js';
import { createRedisBus } from '../../src/cluster/bus/redisBus.js';
import { createClusterMeter } from '../../src/cluster/metrics.js';
import { createLoopbackBus, type Bus, type BusBody, type BusMessage } from '../../src/delivery/bus.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { SHARED_REDIS_URL } from './cluster.js';
import { uniqueName } from './hub.js';

export interface BusNodes {
  buses: Bus[];
  close(): Promise<void>;
}

export type Transport = 'loopback' | 'redis';

/** `count` nodes on one bus of the given transport. */
export async function busNodes(transport: Transport, count: number): Promise<BusNodes> {
  if (transport === 'loopback') {
    const medium = createLoopbackBus();
    return { buses: Array.from({ length: count }, () => medium.node()), close: async () => undefined };
  }
  const channel = `${uniqueName('bus')}:control`;
  const secret = 's'.repeat(32);
  const logger = pino({ level: 'silent' });
  const nodes = Array.from({ length: count }, (_, i) => {
    const nodeId = `n${i}`;
    const seal = createBusSeal({ secret, nodeId });
    const meter = createClusterMeter(createMetrics({ enabled: false }).factory, nodeId);
    const link = createRedisLink({
      url: SHARED_REDIS_URL,
      nodeId,
      logger,
      onMessage(ch, sealed) {
        if (seal.isOwn(sealed)) return;
        const opened = seal.open(ch, sealed);
        if (opened.ok) redisBus.receive(opened.text);
      },
    });
    const redisBus = createRedisBus({ nodeId, send: (text) => link.publish(channel, seal.seal(channel, text)), meter, logger });
    return { link, bus: redisBus.bus };
  });
  await Promise.all(nodes.map((n) => n.link.connect([channel])));
  return { buses: nodes.map((n) => n.bus), close: async () => void (await Promise.all(nodes.map((n) => n.link.close()))) };
}

/** Resolves with the next body of `message`'s kind that `bus` receives. */
export function nextOn<T extends BusBody>(bus: Bus, message: BusMessage<T>): Promise<T> {
  return new Promise((resolve) => {
    const off = bus.subscribe(message, (body) => {
      off();
      resolve(body);
    });
  });
}
