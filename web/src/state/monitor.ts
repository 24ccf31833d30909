// The Butler↔agent monitor: every BUTLER_AGENT_MESSAGE of the session, filed per agent, collected
// while the Monitor page is closed too (so opening it shows what happened meanwhile, with a count of
// what was not yet seen), merged with the stored history read page by page from the REST route.
import type { RestClient } from '@hub/client';
import type { Live } from '../lib/live';
import { createStore, type Store } from '../lib/store';
import { fromHistory, fromMonitorPayload, mergeEntries, oldestId, type MonitorEntry } from './monitorEntries';

export const HISTORY_PAGE = 100;
/** Held per agent that is not on screen; older messages are read again from the history when wanted. */
const KEEP_UNWATCHED = 500;

export interface Conversation {
  /** Oldest first, each message once. */
  entries: readonly MonitorEntry[];
  /** The newest history page was read (before that, only what arrived live is held). */
  loaded: boolean;
  /** The hub may hold messages older than the oldest entry. */
  older: boolean;
  loading: 'latest' | 'older' | null;
  error: unknown;
  /** Which read the error is from, so a retry repeats that one. */
  failed: 'latest' | 'older' | null;
}

export interface MonitorState {
  conversations: ReadonlyMap<number, Conversation>;
  /** Messages that arrived while their agent was not on screen. */
  unseen: ReadonlyMap<number, number>;
  /** The agent on screen, if the page is open on one. */
  watching: number | undefined;
}

export interface Monitor {
  state: Store<MonitorState>;
  /** The agent now on screen (undefined: none); reads its history the first time. */
  watch(agentId: number | undefined): void;
  /** Reads the newest history page again (a retry, or after a reconnection). */
  reload(agentId: number): Promise<void>;
  /** Reads the page before the oldest message held. */
  loadOlder(agentId: number): Promise<void>;
  dispose(): void;
}

export const EMPTY_CONVERSATION: Conversation = { entries: [], loaded: false, older: false, loading: null, error: undefined, failed: null };

export function createMonitor(api: RestClient, live: Live): Monitor {
  const state = createStore<MonitorState>({ conversations: new Map(), unseen: new Map(), watching: undefined });
  const inFlight = new Map<number, Promise<void>>();

  function update(agentId: number, change: (c: Conversation) => Conversation) {
    state.set((prev) => {
      const conversations = new Map(prev.conversations);
      conversations.set(agentId, change(prev.conversations.get(agentId) ?? EMPTY_CONVERSATION));
      return { ...prev, conversations };
    });
  }

  function fetchPage(agentId: number, which: 'latest' | 'older'): Promise<void> {
    const running = inFlight.get(agentId);
    if (running) return running;
    const held = state.get().conversations.get(agentId) ?? EMPTY_CONVERSATION;
    const before = which === 'older' ? oldestId(held.entries) : undefined;
    update(agentId, (c) => ({ ...c, loading: which, error: undefined, failed: null }));
    const done = api.chat
      .butlerAgent(agentId, { limit: HISTORY_PAGE, before_id: before })
      .then(
        (rows) => {
          const full = rows.length === HISTORY_PAGE;
          update(agentId, (c) => ({
            entries: mergeEntries(
              c.entries,
              rows.map((row) => fromHistory(agentId, row)),
            ),
            loaded: true,
            // A full newest page says more may exist, unless older pages were read already.
            older: which === 'older' ? full : c.loaded ? c.older : c.older || full,
            loading: null,
            error: undefined,
            failed: null,
          }));
        },
        (err: unknown) => update(agentId, (c) => ({ ...c, loading: null, error: err, failed: which })),
      )
      .finally(() => inFlight.delete(agentId));
    inFlight.set(agentId, done);
    return done;
  }

  const offFrames = live.client.on('BUTLER_AGENT_MESSAGE', (frame) => {
    const entry = fromMonitorPayload(frame.payload);
    if (!entry) return;
    const agentId = entry.agentId;
    state.set((prev) => {
      const held = prev.conversations.get(agentId) ?? EMPTY_CONVERSATION;
      let entries = mergeEntries(held.entries, [entry]);
      if (entries === held.entries) return prev;
      let older = held.older;
      if (prev.watching !== agentId && entries.length > KEEP_UNWATCHED) {
        entries = entries.slice(-KEEP_UNWATCHED);
        older = true;
      }
      const conversations = new Map(prev.conversations).set(agentId, { ...held, entries, older });
      const unseen = prev.watching === agentId ? prev.unseen : new Map(prev.unseen).set(agentId, (prev.unseen.get(agentId) ?? 0) + 1);
      return { ...prev, conversations, unseen };
    });
  });

  // A resumed socket replays what it missed; a fresh read of the page on screen closes any other gap.
  const offConnections = live.connections.subscribe(() => {
    const watching = state.get().watching;
    if (watching !== undefined && live.connections.get() > 1) void fetchPage(watching, 'latest');
  });

  return {
    state,
    watch(agentId) {
      state.set((prev) => {
        if (prev.watching === agentId && (agentId === undefined || !prev.unseen.has(agentId))) return prev;
        const unseen = new Map(prev.unseen);
        if (agentId !== undefined) unseen.delete(agentId);
        return { ...prev, watching: agentId, unseen };
      });
      if (agentId === undefined) return;
      // Read once per session; a read that failed is tried again when the agent is opened again.
      if (!state.get().conversations.get(agentId)?.loaded) void fetchPage(agentId, 'latest');
    },
    reload: (agentId) => fetchPage(agentId, 'latest'),
    loadOlder: (agentId) => fetchPage(agentId, 'older'),
    dispose() {
      offFrames();
      offConnections();
    },
  };
}
