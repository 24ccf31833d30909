// Butler's authorization requests still waiting for a decision that this user may see (admins: all).
// Read again when a request or a decision arrives over the socket, after a reconnection, and when
// the next one expires (the hub tells only those who saw a request that it expired).
import type { AuthorizationView } from '@hub/client';
import { useEffect, useState } from 'react';
import { useHub } from '../../app/context';
import { useStore } from '../../lib/store';

/** The most the hub lists in one page; more shows as "200+". */
export const PENDING_LIMIT = 200;

export interface PendingApprovals {
  items: AuthorizationView[] | undefined;
  error: unknown;
}

export function usePendingApprovals(): PendingApprovals & { reload(): void } {
  const { api, live } = useHub();
  const connections = useStore(live.connections);
  const [bump, setBump] = useState(0);
  const [state, setState] = useState<PendingApprovals>({ items: undefined, error: undefined });

  useEffect(() => {
    const again = () => setBump((n) => n + 1);
    const offs = [live.client.on('AUTH_REQUEST', again), live.client.on('AUTH_STATUS_UPDATE', again)];
    return () => offs.forEach((off) => off());
  }, [live]);

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    api.chat.authRequests({ status: 'PENDING', limit: PENDING_LIMIT }).then(
      (items) => {
        if (cancelled) return;
        setState({ items, error: undefined });
        const next = Math.min(...items.map((i) => Date.parse(i.expires_at)).filter(Number.isFinite));
        // setTimeout's delay is a 32-bit number; a far expiry is looked at again within a day.
        if (Number.isFinite(next)) timer = setTimeout(() => setBump((n) => n + 1), Math.min(Math.max(next - Date.now() + 500, 1000), 86_400_000));
      },
      (error: unknown) => {
        if (!cancelled) setState((prev) => ({ ...prev, error }));
      },
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [api, connections, bump]);

  return { ...state, reload: () => setBump((n) => n + 1) };
}
