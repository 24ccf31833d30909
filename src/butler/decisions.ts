// A decision on an authorization request, stored on a node that does not run Butler: the conversation
// that asked lives on the leader, so the decision is forwarded there on the bus and the leader's
// Butler reads it from the store and acts on it. On a single node Butler always runs here and
// nothing is forwarded.
import type { Logger } from 'pino';
import { z } from 'zod';
import { defineBusMessage, type Bus } from '../delivery/bus.js';
import type { Leadership } from '../delivery/leadership.js';

/** "An authorization request was decided on this node": the leader's Butler acts on it. */
export const decisionMessage = defineBusMessage('decided', z.object({ actionId: z.string() }), { durable: true });

/** Tells the leader that `actionId` was decided here. */
export function forwardDecision(bus: Bus, actionId: string): void {
  bus.publish(decisionMessage, { actionId });
}

/** On the leader: each decision forwarded from another node is acted on here. */
export function followDecisions(deps: { bus: Bus; leadership: Pick<Leadership, 'isLeader'>; act(actionId: string): Promise<void>; log: Logger }): () => void {
  return deps.bus.subscribe(decisionMessage, ({ actionId }) => {
    if (!deps.leadership.isLeader()) return;
    void deps.act(actionId).catch((err: unknown) => deps.log.error({ err, actionId }, 'could not act on a forwarded decision'));
  });
}
