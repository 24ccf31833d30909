// Change notifications for one person's MCP resources: while they have calls open (a subscription
// stream among them), an endpoint inside the hub bound to the router for them hears what their own
// sockets would, and each stored message in one of their threads says that thread's resource
// (hub://threads/{id}/messages) changed. It reaches only that person's subscriptions: nobody else
// learns when their threads move. The router closing it (the user deleted, their role changed, a
// reset) ends the person's open calls.
import type { RouterEvent } from '../actors/router.js';
import type { Endpoint, Principal } from '../delivery/types.js';
import { threadUri } from './resources.js';

/** Below the inbox's keys (inbox.ts): unique for the life of the hub. */
const KEY_BASE = -(2 ** 41);
let lastKey = 0;

export interface ChangeSink {
  resourceUpdated(uri: string): void;
}

/** Binds the watch; returns its unbind. `ended` runs when the router closes it. */
export function watchChanges(router: { send(event: RouterEvent): void }, user: Principal, sink: ChangeSink, ended: (reason: string) => void): () => void {
  let bound = true;
  const endpoint: Endpoint = {
    key: KEY_BASE - ++lastKey,
    user,
    inHub: true,
    authenticatedAt: Date.now(),
    deliver(_text, id, frame) {
      if (id === undefined || frame?.conversation_id === undefined) return;
      sink.resourceUpdated(threadUri(frame.conversation_id));
    },
    close(_code, reason) {
      unbind();
      ended(reason);
    },
  };
  const unbind = () => {
    if (!bound) return;
    bound = false;
    router.send({ type: 'UNBIND', endpoint });
  };
  router.send({ type: 'BIND', endpoint });
  return unbind;
}
