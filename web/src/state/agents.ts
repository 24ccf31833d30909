// Agents and Butler with live presence, for the pages that name or pick agents (chat, monitor, feed):
// the first page of the list comes from the REST API once per connection, then every PRESENCE frame
// updates it in place (no polling). A PRESENCE for someone not listed reloads the list only when the
// list was complete (an agent registered since): with more agents than one page, the rest are the
// roster pages' business (hooks/useRoster.ts), and reloading on each of them would read the page
// again on every connect of 100k agents.
import type { PresenceView, RestClient, UserView } from '@hub/client';
import type { Live } from '../lib/live';
import { createStore, type Store } from '../lib/store';

export interface AgentsState {
  /** By id; Butler included. */
  byId: ReadonlyMap<number, UserView>;
  /** Whether `byId` holds every agent (false past the first page). */
  complete: boolean;
  /** Ids asked for past the first page that the hub does not know. */
  absent: ReadonlySet<number>;
  loaded: boolean;
  error: unknown;
}

export interface Agents {
  state: Store<AgentsState>;
  reload(): Promise<void>;
  /**
   * Past the first page: reads the agents whose name contains `q` from the hub and keeps them, so a
   * picker's filter finds any agent (their presence then follows live like the rest).
   */
  search(q: string): Promise<void>;
  /** Past the first page: reads the agent with this id from the hub and keeps it (a page that names one agent). */
  ensure(id: number): Promise<void>;
  dispose(): void;
}

const BUTLER_ID = 2;
/** Agents read for the pickers: Butler and the first agents by id. */
export const FIRST_PAGE = 1000;
/** Agents a picker's search past the first page reads from the hub. */
const SEARCH_PAGE = 50;

export function isButler(user: Pick<UserView, 'id' | 'role'>): boolean {
  return user.role === 'BUTLER' || user.id === BUTLER_ID;
}

export function createAgents(api: RestClient, live: Live): Agents {
  const state = createStore<AgentsState>({ byId: new Map(), complete: true, absent: new Set(), loaded: false, error: undefined });
  let loading: Promise<void> | undefined;

  /**
   * PRESENCE frames that arrived while a load was in flight. The list may have been read before
   * they were stored (and one for an agent the list did not know yet is dropped by `flush`), so they
   * are applied again on top of it; a change stored later still sends its own frame after.
   */
  let duringLoad: Map<number, PresenceView> | undefined;
  const withPresence = (known: UserView, p: PresenceView): UserView => ({
    ...known,
    status: p.status,
    online: p.online,
    last_seen_at: p.last_seen_at,
    last_report: p.last_report,
  });

  async function load() {
    duringLoad = new Map();
    try {
      const [agents, butler] = await Promise.all([api.agents.list({ limit: FIRST_PAGE }), api.agents.butler()]);
      const byId = new Map<number, UserView>();
      byId.set(butler.id, butler);
      for (const agent of agents.items) byId.set(agent.id, agent);
      for (const [id, p] of duringLoad) {
        const known = byId.get(id);
        if (known) byId.set(id, withPresence(known, p));
      }
      state.set({ byId, complete: agents.items.length >= agents.total, absent: new Set(), loaded: true, error: undefined });
    } catch (err) {
      state.set((prev) => ({ ...prev, error: err }));
    } finally {
      duringLoad = undefined;
    }
  }
  function reload() {
    return (loading ??= load().finally(() => (loading = undefined)));
  }

  // Every report an agent sends comes with a PRESENCE (its last_report changed): under a busy feed that
  // is thousands a second, so updates are gathered and applied at most once per frame.
  let queued = new Map<number, PresenceView>();
  let flushing = false;
  function flush() {
    flushing = false;
    const updates = queued;
    queued = new Map();
    const byId = new Map(state.get().byId);
    let unknown = false;
    for (const [id, p] of updates) {
      const known = byId.get(id);
      if (!known) unknown = true;
      else byId.set(id, withPresence(known, p));
    }
    state.set((prev) => ({ ...prev, byId }));
    if (unknown && state.get().complete) void reload();
  }
  function apply(presence: PresenceView) {
    duringLoad?.set(presence.id, presence);
    queued.set(presence.id, presence);
    if (!flushing) {
      flushing = true;
      requestAnimationFrame(flush);
    }
  }

  const offPresence = live.client.on('PRESENCE', (frame) => apply({ ...frame.payload, id: frame.payload.user_id, role: 'AGENT' }));
  // Presence is not replayed on resume: every (re)connection reads the list again.
  const offConnections = live.connections.subscribe(() => void reload());
  void reload();
  /** Reads a page of the roster from the hub and keeps the agents the store did not hold. */
  async function keep(query: { q?: string; id?: number }) {
    try {
      const found = await api.agents.list({ ...query, limit: SEARCH_PAGE });
      state.set((prev) => {
        const byId = new Map(prev.byId);
        for (const agent of found.items) if (!byId.has(agent.id)) byId.set(agent.id, agent);
        return { ...prev, byId, absent: query.id !== undefined && found.items.length === 0 ? new Set([...prev.absent, query.id]) : prev.absent };
      });
    } catch (err) {
      state.set((prev) => ({ ...prev, error: err }));
    }
  }
  const search = async (q: string) => {
    if (!state.get().complete && q !== '') await keep({ q });
  };
  const ensure = async (id: number) => {
    const now = state.get();
    if (now.loaded && !now.complete && !now.byId.has(id) && !now.absent.has(id)) await keep({ id });
  };

  return {
    state,
    reload,
    search,
    ensure,
    dispose() {
      offPresence();
      offConnections();
    },
  };
}
