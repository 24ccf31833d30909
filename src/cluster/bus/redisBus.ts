// The bus port on Redis: every message a part of the hub declared (delivery/bus.ts) travels on the
// cluster's control channel as `{ kind, node, ...body }`, sealed like everything on Redis. This file
// knows no kind: it decodes the envelope, drops this node's own messages, and hands the body to the
// inbox, which checks it against the declaring part's schema. Publishing while Redis is away fails
// (counted); the parts that publish rely on the store for what must not be lost.
import type { Logger } from 'pino';
import { createBusInbox, type Bus } from '../../delivery/bus.js';
import type { ClusterMeter } from '../metrics.js';

export interface RedisBusDeps {
  nodeId: string;
  /** Seals the text and publishes it on the control channel; false when it could not. */
  send(text: string): Promise<boolean>;
  meter: Pick<ClusterMeter, 'published' | 'publishFailed' | 'received'>;
  logger: Pick<Logger, 'warn'>;
}

export function createRedisBus(deps: RedisBusDeps) {
  const { nodeId, meter } = deps;
  const inbox = createBusInbox();
  const bus: Bus = {
    publish(message, body) {
      const text = JSON.stringify({ ...body, kind: message.kind, node: nodeId });
      void deps.send(text).then((sent) => (sent ? meter.published('control', text.length) : meter.publishFailed('control')));
    },
    subscribe: inbox.subscribe,
  };
  return {
    bus,
    /** A message opened from the control channel. */
    receive(text: string): void {
      let envelope: unknown;
      try {
        envelope = JSON.parse(text);
      } catch {
        envelope = undefined;
      }
      const e = envelope as { kind?: unknown; node?: unknown } | undefined;
      if (typeof e !== 'object' || e === null || typeof e.kind !== 'string' || typeof e.node !== 'string')
        return deps.logger.warn({ bytes: text.length }, 'ignored a control message that is not one');
      if (e.node === nodeId) return;
      const { kind, node: _node, ...body } = e as { kind: string; node: string };
      const received = inbox.receive(kind, body);
      if (received !== 'handled') return deps.logger.warn({ bytes: text.length, kind, problem: received }, 'ignored a control message that is not one');
      meter.received('control', text.length);
    },
  };
}
