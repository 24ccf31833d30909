// The live feed: dashboard telemetry collected from the socket for the whole session (so the Live
// feed page shows what came while another page was open), and older history paged in from
// `GET /api/messages` on demand. Rows are newest first, one per id, at most MAX_ROWS; filters are
// the view's business. Live frames are gathered and merged a few times a second, so a burst of
// thousands is a handful of renders, not thousands.
import type { RestClient } from '@hub/client';
import type { Live } from '../lib/live';
import { createStore, type Store } from '../lib/store';
import { mergeRows, rowOfFrame, rowOfMessage, type FeedRow } from './feedRows';

/** The newest this many rows are kept; older ones are dropped (and can be paged in again). */
export const MAX_ROWS = 20_000;
/** The largest page `GET /api/messages` gives. */
export const PAGE_SIZE = 200;
const FLUSH_MS = 100;

/**
 * Older history: `idle` before the first page was asked for, `more` when the hub has older rows,
 * `done` when it has none, `full` when the feed holds MAX_ROWS and pages no further.
 */
export type HistoryStatus = 'idle' | 'loading' | 'more' | 'done' | 'full' | 'error';

export interface FeedState {
  rows: readonly FeedRow[];
  history: HistoryStatus;
  historyError: unknown;
  /** Telemetry messages on the hub visible to this user, as of the last page plus what came live since. */
  hubTotal: number | undefined;
  /** The hub stopped counting at hubTotal: more rows match (shown as "10,000+"). */
  hubTotalCapped: boolean;
}

export interface Feed {
  state: Store<FeedState>;
  /** Pages in the next older rows (one request at a time; a no-op when there is nothing older). */
  loadOlder(): Promise<void>;
  dispose(): void;
}

export function createFeed(api: RestClient, live: Live, cap = MAX_ROWS): Feed {
  const state = createStore<FeedState>({ rows: [], history: 'idle', historyError: undefined, hubTotal: undefined, hubTotalCapped: false });
  let pending: FeedRow[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let loading: Promise<void> | undefined;

  function flush() {
    timer = undefined;
    const incoming = pending;
    pending = [];
    state.set((prev) => {
      const rows = mergeRows(prev.rows, incoming, cap);
      if (rows === prev.rows) return prev;
      const newest = prev.rows[0]?.id ?? 0;
      const arrived = new Set(incoming.filter((r) => r.id > newest).map((r) => r.id)).size;
      const settled = prev.history === 'more' || prev.history === 'done';
      return {
        ...prev,
        rows,
        // At the cap, older pages would only be dropped again.
        history: settled && rows.length >= cap ? 'full' : prev.history,
        hubTotal: prev.hubTotal === undefined ? undefined : prev.hubTotal + arrived,
      };
    });
  }

  const offFrame = live.client.on('frame', (frame) => {
    const r = rowOfFrame(frame);
    if (!r) return;
    pending.push(r);
    // A long burst while the tab sleeps (timers throttled) stays bounded too.
    if (pending.length > cap) pending = pending.slice(-cap);
    timer ??= setTimeout(flush, FLUSH_MS);
  });

  async function fetchOlder() {
    const before = state.get().rows.at(-1)?.id;
    state.set((prev) => ({ ...prev, history: 'loading', historyError: undefined }));
    let settle: (prev: FeedState) => FeedState;
    try {
      const page = await api.messages.list({ limit: PAGE_SIZE, ...(before !== undefined ? { before_id: before } : {}) });
      const incoming = page.items.map(rowOfMessage).filter((r): r is FeedRow => r !== undefined);
      settle = (prev) => {
        const rows = mergeRows(prev.rows, incoming, cap);
        const history: HistoryStatus = page.items.length < PAGE_SIZE ? 'done' : rows.length >= cap ? 'full' : 'more';
        // X-Total-Count counts every matching row, whatever `before_id` says.
        return { ...prev, rows, history, hubTotal: page.total, hubTotalCapped: page.capped === true };
      };
    } catch (err) {
      settle = (prev) => ({ ...prev, history: 'error', historyError: err });
    }
    // Free for the next page before anyone hears of this one: a view may ask again at once.
    loading = undefined;
    state.set(settle);
  }

  return {
    state,
    loadOlder() {
      const { history, rows } = state.get();
      if (history === 'done' || history === 'full') return Promise.resolve();
      if (rows.length >= cap) {
        state.set((prev) => ({ ...prev, history: 'full' }));
        return Promise.resolve();
      }
      return (loading ??= fetchOlder());
    },
    dispose() {
      offFrame();
      clearTimeout(timer);
    },
  };
}
