// Who wants to know that agents' presence moved (one connected, disconnected or reported): every
// delivery list this node hands its router passes here first, its own batches and, in cluster mode,
// the other nodes', so a listener hears each PRESENCE the humans' sockets get, once per list that
// holds one. Listeners learn only that something changed, never what: what a person may read of
// it, they read through the services as themselves.
import type { Delivery } from './types.js';

export interface PresenceChanges {
  /** `listener` runs after each delivery list holding a presence change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

export function createPresenceTap(): PresenceChanges & { note(deliveries: readonly Pick<Delivery, 'type'>[]): void } {
  const listeners = new Set<() => void>();
  return {
    note(deliveries) {
      if (listeners.size === 0) return;
      if (!deliveries.some((d) => d.type === 'PRESENCE')) return;
      for (const listener of listeners) listener();
    },
    onChange(listener) {
      const own = () => listener();
      listeners.add(own);
      return () => void listeners.delete(own);
    },
  };
}
