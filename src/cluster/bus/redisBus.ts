// The bus port on Redis: every message a part of the hub declared (delivery/bus.ts) travels on the
// cluster's control channel as `{ kind, node, ...body }`, sealed like everything on Redis. This file
// knows no kind: it decodes the envelope, drops this node's own messages, and hands the body to the
// inbox, which checks it against the declaring part's schema. Publishing while Redis is away fails
// (counted). A durable message is written to the bus journal first (journal.ts) and carries its id
// (`jid`), so a node that hears it on Redis and then reads it from the store runs it once.
import type { Logger } from 'pino';
import { createBusInbox, type Bus } from '../../delivery/bus.js';
import type { ClusterMeter } from '../metrics.js';
import type { BusJournal } from './journal.js';

export interface RedisBusDeps {
  nodeId: string;
  /** Seals the text and publishes it on the control channel; false when it could not. */
  send(text: string): Promise<boolean>;
  meter: Pick<ClusterMeter, 'published' | 'publishFailed' | 'received'>;
  logger: Pick<Logger, 'warn'>;
  /** Where durable messages are kept (without it they travel on Redis only). */
  journal?: Pick<BusJournal, 'write' | 'heard'>;
}

export function createRedisBus(deps: RedisBusDeps) {
  const { nodeId, meter } = deps;
  const inbox = createBusInbox();
  const bus: Bus = {
    publish(message, body) {
      const say = (jid?: number) => {
        const text = JSON.stringify({ ...body, kind: message.kind, node: nodeId, ...(jid !== undefined ? { jid } : {}) });
        void deps.send(text).then((sent) => (sent ? meter.published('control', text.length) : meter.publishFailed('control')));
      };
      if (!message.durable || !deps.journal) return say();
      void deps.journal.write(message.kind, JSON.stringify(body)).then(say);
    },
    subscribe: inbox.subscribe,
  };
  return {
    bus,
    /** A durable message another node wrote, read from the journal. */
    hand(kind: string, body: unknown): void {
      const received = inbox.receive(kind, body);
      if (received !== 'handled') deps.logger.warn({ kind, problem: received }, 'ignored a bus journal row that is not a message');
    },
    /** A message opened from the control channel. */
    receive(text: string): void {
      let envelope: unknown;
      try {
        envelope = JSON.parse(text);
      } catch {
        envelope = undefined;
      }
      const e = envelope as { kind?: unknown; node?: unknown; jid?: unknown } | undefined;
      if (
        typeof e !== 'object' ||
        e === null ||
        typeof e.kind !== 'string' ||
        typeof e.node !== 'string' ||
        (e.jid !== undefined && !Number.isSafeInteger(e.jid))
      )
        return deps.logger.warn({ bytes: text.length }, 'ignored a control message that is not one');
      if (e.node === nodeId) return;
      const { kind, node: _node, jid, ...body } = e as { kind: string; node: string; jid?: number };
      // Heard already: the journal was read before Redis brought it.
      if (jid !== undefined && deps.journal && !deps.journal.heard(jid)) return;
      const received = inbox.receive(kind, body);
      if (received !== 'handled') return deps.logger.warn({ bytes: text.length, kind, problem: received }, 'ignored a control message that is not one');
      meter.received('control', text.length);
    },
  };
}
