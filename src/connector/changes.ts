// A connector changed through a node that does not run the platform connection: the change is in
// the store, and the leader is told on the bus to reload the connector from there. On a single node
// the connection runs here and nothing is said.
import type { Logger } from 'pino';
import { z } from 'zod';
import { defineBusMessage, type Bus } from '../delivery/bus.js';
import type { Leadership } from '../delivery/leadership.js';

/** "A connector was changed through this node": the leader reloads it from the store. */
export const connectorChangedMessage = defineBusMessage('connector-changed', z.object({}), { durable: true });

export function announceChange(bus: Bus): void {
  bus.publish(connectorChangedMessage, {});
}

/** On the leader: each change announced by another node reloads the connector here. */
export function followChanges(deps: { bus: Bus; leadership: Pick<Leadership, 'isLeader'>; reload(): Promise<void>; log: Logger }): () => void {
  return deps.bus.subscribe(connectorChangedMessage, () => {
    if (!deps.leadership.isLeader()) return;
    void deps.reload().catch((err: unknown) => deps.log.error({ err }, 'could not reload the connector'));
  });
}
