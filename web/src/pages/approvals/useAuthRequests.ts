// One status filter's authorization requests, newest first, a page at a time (`before` and
// `before_action_id` name the last one held). A new AUTH_REQUEST frame, or a reconnection, reads the first page
// again and merges it in, so the list stays live without polling; AUTH_STATUS_UPDATE reaches the
// cards through the approvals store.
import type { AuthorizationView } from '@hub/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useHub } from '../../app/context';

export const PAGE_SIZE = 20;
export type StatusFilter = AuthorizationView['status'] | 'ALL';

export interface AuthRequestList {
  items: AuthorizationView[] | undefined;
  error: unknown;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: unknown;
  reload(): void;
  loadMore(): void;
}

/** Newest first; a fresher copy of a request replaces the one held. */
export function mergeRequests(held: readonly AuthorizationView[], fresh: readonly AuthorizationView[]): AuthorizationView[] {
  const byId = new Map(held.map((r) => [r.action_id, r]));
  for (const r of fresh) byId.set(r.action_id, r);
  return [...byId.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || a.action_id.localeCompare(b.action_id));
}

export function useAuthRequests(status: StatusFilter): AuthRequestList {
  const { api, live } = useHub();
  const [items, setItems] = useState<AuthorizationView[]>();
  const [error, setError] = useState<unknown>();
  const [hasMore, setHasMore] = useState(false);
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>();
  const generation = useRef(0);

  // The first page: a fresh list when the filter changes, merged in otherwise.
  const readFirst = useCallback(
    (fresh: boolean) => {
      const mine = fresh ? ++generation.current : generation.current;
      if (fresh) {
        setItems(undefined);
        setHasMore(false);
        setMoreError(undefined);
      }
      setError(undefined);
      api.chat.authRequests({ ...(status === 'ALL' ? {} : { status }), limit: PAGE_SIZE }).then(
        (page) => {
          if (mine !== generation.current) return;
          setItems((prev) => (prev && !fresh ? mergeRequests(prev, page) : page));
          if (fresh) setHasMore(page.length === PAGE_SIZE);
        },
        (err: unknown) => {
          if (mine === generation.current) setError(err);
        },
      );
    },
    [api, status],
  );

  useEffect(() => readFirst(true), [readFirst]);
  useEffect(() => {
    const offs = [live.client.on('AUTH_REQUEST', () => readFirst(false)), live.connections.subscribe(() => readFirst(false))];
    return () => offs.forEach((off) => off());
  }, [live, readFirst]);

  const loadMore = useCallback(() => {
    const last = items?.at(-1);
    if (!last || loadingMore) return;
    const mine = generation.current;
    setLoadingMore(true);
    setMoreError(undefined);
    api.chat
      .authRequests({ ...(status === 'ALL' ? {} : { status }), limit: PAGE_SIZE, before: last.created_at, before_action_id: last.action_id })
      .then(
        (page) => {
          if (mine !== generation.current) return;
          setItems((prev) => mergeRequests(prev ?? [], page));
          setHasMore(page.length === PAGE_SIZE);
        },
        (err: unknown) => {
          if (mine === generation.current) setMoreError(err);
        },
      )
      .finally(() => setLoadingMore(false));
  }, [api, status, items, loadingMore]);

  return { items, error, hasMore, loadingMore, moreError, reload: () => readFirst(true), loadMore };
}
