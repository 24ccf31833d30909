// Butler's authorization requests for this session: which ones wait for an answer (the nav's count)
// and the outcomes known, so a chat card and the Approvals list show the same status. Both are read
// once per connection (AUTH_STATUS_UPDATE is not stored, so not replayed after a gap), then
// AUTH_REQUEST and AUTH_STATUS_UPDATE frames keep them current.
import type { AuthResponseResult, RestClient } from '@hub/client';
import type { Live } from '../lib/live';
import { createStore, type Store } from '../lib/store';

export interface ApprovalsState {
  /** Action ids of the requests waiting for an answer. */
  pending: ReadonlySet<string>;
  /** Outcomes by action id: read at each connection, then live (newer than a row read earlier). */
  decided: ReadonlyMap<string, string>;
  /** Who decided and when, where known (a live update says neither: the list is read again for them). */
  decisions: ReadonlyMap<string, Decision>;
  /** Why the pending list could not be read (the count is then a lower bound). */
  error: unknown;
}

export interface Decision {
  /** User id; null when the hub decided (expiry). */
  by: number | null;
  at: string;
  /** What the person who decided wrote with it (null: nothing; undefined: not known yet). */
  note?: string | null;
}

export interface Approvals {
  state: Store<ApprovalsState>;
  reload(): Promise<void>;
  /** Approves or rejects; the outcome is recorded at once, before the hub's AUTH_STATUS_UPDATE. */
  respond(actionId: string, approved: boolean, note?: string): Promise<AuthResponseResult>;
  dispose(): void;
}

/** More than a person answers at once; the count says "50+" past it. */
export const PENDING_LIMIT = 50;

export function createApprovals(api: RestClient, live: Live, me = 0): Approvals {
  const state = createStore<ApprovalsState>({ pending: new Set(), decided: new Map(), decisions: new Map(), error: undefined });
  let rereading: ReturnType<typeof setTimeout> | undefined;

  function decide(actionId: string, status: string, decision?: Decision) {
    state.set((prev) => {
      const pending = new Set(prev.pending);
      pending.delete(actionId);
      const decided = new Map(prev.decided);
      decided.set(actionId, status);
      const decisions = decision ? new Map(prev.decisions).set(actionId, decision) : prev.decisions;
      return { ...prev, pending, decided, decisions };
    });
  }

  async function reload() {
    try {
      // The recent ones too: a decision made during a gap in the connection reaches the chat cards.
      const [waiting, recent] = await Promise.all([
        api.chat.authRequests({ status: 'PENDING', limit: PENDING_LIMIT }),
        api.chat.authRequests({ limit: PENDING_LIMIT }),
      ]);
      state.set((prev) => {
        const decided = new Map(prev.decided);
        const decisions = new Map(prev.decisions);
        for (const r of recent) if (r.status !== 'PENDING') decided.set(r.action_id, r.status);
        for (const r of recent) if (r.decided_at) decisions.set(r.action_id, { by: r.decided_by, at: r.decided_at, note: r.decision_note });
        // Kept: requests that arrived live while this was read (a decided one is in `recent`).
        const pending = new Set([...waiting.map((r) => r.action_id), ...prev.pending].filter((id) => !decided.has(id)));
        return { pending, decided, decisions, error: undefined };
      });
    } catch (err) {
      // Only the count depends on it; the Approvals page reads its list itself and shows its errors.
      state.set((prev) => ({ ...prev, error: err }));
    }
  }

  const offs = [
    live.client.on('AUTH_REQUEST', (frame) => {
      if (frame.payload.status !== 'PENDING') return;
      state.set((prev) =>
        prev.pending.has(frame.payload.action_id) || prev.decided.has(frame.payload.action_id)
          ? prev
          : { ...prev, pending: new Set(prev.pending).add(frame.payload.action_id) },
      );
    }),
    live.client.on('AUTH_STATUS_UPDATE', (frame) => {
      decide(frame.payload.action_id, frame.payload.status);
      // The frame says what, not who or when: read the recent ones again (once for a burst).
      if (!state.get().decisions.has(frame.payload.action_id)) rereading ??= setTimeout(() => ((rereading = undefined), void reload()), 300);
    }),
    live.connections.subscribe(() => void reload()),
  ];
  void reload();

  return {
    state,
    reload,
    async respond(actionId, approved, note) {
      try {
        const result = await api.chat.authRespond(actionId, approved, note);
        decide(actionId, approved ? 'APPROVED' : 'REJECTED', { by: me, at: new Date().toISOString(), note: note ?? null });
        return result;
      } catch (err) {
        // Decided elsewhere, expired or gone: the pending list is out of date.
        void reload();
        throw err;
      }
    },
    dispose() {
      if (rereading) clearTimeout(rereading);
      for (const off of offs) off();
    },
  };
}
