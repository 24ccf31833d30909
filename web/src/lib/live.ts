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
  /**
   * Epoch ms when the socket stopped being open (undefined while it is open, and before it first
   * opened): presence and counts shown since are only as fresh as that moment.
   */
  staleSince: Store<number | undefined>;
  /** Starts over after the client stopped (the indicator's "Reconnect"). */
  restart(): void;
  close(): Promise<void>;
}

export function createLive(session: SessionStore, base = window.location.origin): Live {
  const status = createStore<StatusEvent>({ state: 'connecting', message: 'connecting', attempt: 0 });
  const connections = createStore(0);
  const staleSince = createStore<number | undefined>(undefined);
  let closing = false;
  const client = new HubClient({ url: base, token: () => session.token(), presence: 'batched' });

  client.on('status', (event) => {
    const wasOpen = status.get().state === 'open';
    status.set(event);
    if (event.state === 'open') {
      staleSince.set(undefined);
      connections.set((n) => n + 1);
    } else if (wasOpen) staleSince.set(Date.now());
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
    staleSince,
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
