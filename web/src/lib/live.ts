// The dashboard's one WebSocket: the hub's own typed client (reconnect with backoff, resume from the
// last id seen, so nothing is missed or doubled), its connection state as a store for the indicator,
// and the end of the session when the hub stops accepting its credential.
import { HubClient, type StatusEvent } from '@hub/client';
import type { SessionStore } from './session';
import { createStore, type Store } from './store';

export interface Live {
  client: HubClient;
  status: Store<StatusEvent>;
  /** Increments on every (re)connection: views refetch what a PRESENCE-less gap may have changed. */
  connections: Store<number>;
  /** Starts over after the client stopped (the indicator's "Reconnect"). */
  restart(): void;
  close(): Promise<void>;
}

export function createLive(session: SessionStore, base = window.location.origin): Live {
  const status = createStore<StatusEvent>({ state: 'connecting', message: 'connecting', attempt: 0 });
  const connections = createStore(0);
  let closing = false;
  const client = new HubClient({ url: base, token: () => session.token() });

  client.on('status', (event) => {
    status.set(event);
    if (event.state === 'open') connections.set((n) => n + 1);
    if (event.state === 'stopped' && !closing) {
      const current = session.current.get();
      if (!current || current.expiresAt <= Date.now()) session.signOut('Your session has expired. Please sign in again.');
      else if (/credential|no longer knows|forbids|log in again/.test(event.message)) session.signOut(`The hub ended this session: ${event.message}.`);
    }
  });

  const connect = () => void client.connect().catch(() => undefined);
  connect();
  return {
    client,
    status,
    connections,
    restart() {
      // A stopped client does not start again; a fresh page state is the honest way back.
      window.location.reload();
    },
    async close() {
      closing = true;
      await client.close();
    },
  };
}
