// Accounting of the edge's connections: one key per upgrade, the live connection actors by key,
// and a wait for all of them to close (shutdown lets close handshakes finish before the app goes).
import type { ConnectionActor } from '../actors/connection.js';

export function createConnectionTable() {
  const connections = new Map<number, ConnectionActor>();
  let closedWaiters: Array<() => void> = [];
  let lastKey = 0;

  return {
    /** Live connection actors by key (for inspection and tests). */
    live: connections as ReadonlyMap<number, ConnectionActor>,
    nextKey: () => ++lastKey,
    add(key: number, actor: ConnectionActor): void {
      connections.set(key, actor);
    },
    forget(key: number): void {
      connections.delete(key);
      if (connections.size > 0 || closedWaiters.length === 0) return;
      const waiters = closedWaiters;
      closedWaiters = [];
      for (const w of waiters) w();
    },
    /**
     * Resolves true once every connection has closed (its close handshake done), false after
     * `timeoutMs`. Shutdown waits for it: a socket force-closed by closing the app mid-handshake
     * was seen to take a connection of the next server in the same process down with it (1006).
     */
    closed(timeoutMs: number): Promise<boolean> {
      if (connections.size === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          closedWaiters = closedWaiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        closedWaiters.push(done);
      });
    },
  };
}
export type ConnectionTable = ReturnType<typeof createConnectionTable>;
