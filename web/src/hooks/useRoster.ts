// One page of the agent roster, searched, filtered and paged by the hub (GET /api/users/agents with
// `q`, `status`, `page`, `limit`): the dashboard never downloads the whole roster, only what is on
// screen. PRESENCE updates the rows on screen in place (gathered and applied once per animation
// frame); presence of agents off screen is the counts' business (useRosterCounts), not this page's,
// except on a page that is not full: agents are listed by id, so an agent registered since (unknown,
// with a higher id) belongs on it, and the page is read again (settled). The page is read again on
// every (re)connection and when the query changes.
import type { AgentCounts, OnlineSeries, PresenceView, UserView } from '@hub/client';
import { useEffect, useRef, useState } from 'react';
import { useHub } from '../app/context';
import { useLiveStats, type LiveStats } from './useLiveStats';

export type PresenceFilter = '' | 'ONLINE' | 'OFFLINE';

export interface RosterQuery {
  /** Part of the username, any case ('' for all). */
  q: string;
  status: PresenceFilter;
  /** From 1. */
  page: number;
  limit: number;
}

export interface RosterPage {
  items: readonly UserView[];
  /** Agents matching the query, all pages. */
  total: number;
  loading: boolean;
  error: unknown;
  reload(): void;
}

const presenceOf = (known: UserView, p: Omit<PresenceView, 'id' | 'role' | 'username'>): UserView => ({
  ...known,
  status: p.status,
  online: p.online,
  last_seen_at: p.last_seen_at,
  last_report: p.last_report,
});

export function useRosterPage(query: RosterQuery): RosterPage {
  const { api, live } = useHub();
  const [items, setItems] = useState<readonly UserView[]>([]);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  const onScreen = useRef(new Set<number>());
  /** Whether the page had room for more: a newly registered agent would be listed on it. */
  const hasRoom = useRef(false);

  useEffect(() => {
    let cancelled = false;
    let generation = 0;
    const read = () => {
      const mine = ++generation;
      setLoading(true);
      api.agents.list({ exclude_role: 'BUTLER', q: query.q || undefined, status: query.status || undefined, page: query.page, limit: query.limit }).then(
        (page) => {
          if (cancelled || mine !== generation) return;
          onScreen.current = new Set(page.items.map((a) => a.id));
          hasRoom.current = page.items.length < query.limit;
          setItems(page.items);
          setTotal(page.total);
          setError(undefined);
          setLoading(false);
        },
        (err: unknown) => {
          if (cancelled || mine !== generation) return;
          setError(err);
          setLoading(false);
        },
      );
    };
    read();
    // Presence is not replayed on resume: a reconnection reads the page again.
    const offConnections = live.connections.subscribe(read);
    return () => {
      cancelled = true;
      offConnections();
    };
  }, [api, live, query.q, query.status, query.page, query.limit, attempt]);

  useEffect(() => {
    let queued = new Map<number, PresenceView>();
    let frame: number | undefined;
    let rereading: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      frame = undefined;
      const updates = queued;
      queued = new Map();
      setItems((rows) => rows.map((row) => (updates.has(row.id) ? presenceOf(row, updates.get(row.id)!) : row)));
    };
    const off = live.client.on('PRESENCE', (f) => {
      const id = f.payload.user_id;
      if (!onScreen.current.has(id)) {
        if (hasRoom.current) rereading ??= setTimeout(() => ((rereading = undefined), setAttempt((n) => n + 1)), 500);
        return;
      }
      queued.set(id, { ...f.payload, id, role: 'AGENT' });
      frame ??= requestAnimationFrame(flush);
    });
    return () => {
      off();
      if (rereading) clearTimeout(rereading);
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }, [live]);

  return { items, total, loading, error, reload: () => setAttempt((n) => n + 1) };
}

const presenceFrame = (frame: { type: string }) => frame.type === 'PRESENCE';

/** Agents by presence and kind, read again at most once a second while presence changes. */
export function useRosterCounts(): LiveStats<AgentCounts> {
  const { api } = useHub();
  return useLiveStats(() => api.agents.counts(), [api], { when: presenceFrame, settleMs: 1000 });
}

export const ONLINE_MINUTES = 6 * 60;

/** Agents online over the last hours (the hub samples once a minute), its last point now. */
export function useOnlineSeries(): LiveStats<OnlineSeries> {
  const { stats } = useHub();
  return useLiveStats(() => stats.online(ONLINE_MINUTES), [stats], { when: presenceFrame, settleMs: 5000, everyMs: 60_000 });
}

/** `value`, once it has stayed the same for `ms` (a search box asks the hub when typing pauses). */
export function useSettled<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export interface RosterFilters {
  q: string;
  status: PresenceFilter;
  page: number;
  /** `q` trimmed, once typing has paused: what the roster is asked for. */
  settledQ: string;
  /** A new search or filter starts again from page 1. */
  onQ(value: string): void;
  onStatus(value: PresenceFilter): void;
  onPage(page: number): void;
}

/** The search, presence filter and page of a roster view (the Agents page, the Overview's list). */
export function useRosterFilters(): RosterFilters {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<PresenceFilter>('');
  const [page, setPage] = useState(1);
  const settledQ = useSettled(q.trim());
  return {
    q,
    status,
    page,
    settledQ,
    onQ: (value) => {
      setQ(value);
      setPage(1);
    },
    onStatus: (value) => {
      setStatus(value);
      setPage(1);
    },
    onPage: setPage,
  };
}
