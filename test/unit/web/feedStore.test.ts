// The session's feed store: live frames gathered into few updates, history pages below them without
// duplicates, paging that stops at the hub's beginning or at the memory cap, and a failed page shown.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageView, RestClient, ServerFrame } from '../../../src/client/index.js';
import type { Live } from '../../../web/src/lib/live.js';
import { createFeed, PAGE_SIZE } from '../../../web/src/state/feed.js';

function frame(id: number): ServerFrame {
  return {
    id,
    type: 'SYSTEM_LOG',
    sender_id: 3,
    sender_name: 'a',
    sender_role: 'AGENT',
    timestamp: 't',
    payload: { level: 'INFO', content: `live ${id}` },
  } as ServerFrame;
}
function stored(id: number): MessageView {
  return {
    id,
    type: 'SYSTEM_LOG',
    sender_id: 3,
    sender_name: 'a',
    sender_role: 'AGENT',
    timestamp: 't',
    payload: { level: 'INFO', content: `stored ${id}` },
    agent_id: 'a',
    level: 'INFO',
    content: `stored ${id}`,
  };
}

/** A hub holding messages 1..count; `list` answers like GET /api/messages (newest first, before_id). */
function fakes(count: number) {
  let handler: ((f: ServerFrame) => void) | undefined;
  const calls: Array<Record<string, unknown>> = [];
  let fail = false;
  const api = {
    messages: {
      list: vi.fn(async (query: { limit?: number; before_id?: number }) => {
        calls.push(query);
        if (fail) throw new Error('the hub is down');
        const top = Math.min(count, (query.before_id ?? count + 1) - 1);
        const items = Array.from({ length: Math.max(0, Math.min(query.limit ?? 50, top)) }, (_, i) => stored(top - i));
        // The hub counts up to 10,000 matching rows and flags the rest (X-Total-Count-Capped).
        return { items, total: Math.min(count, 10_000), capped: count > 10_000 };
      }),
    },
  } as unknown as RestClient;
  const live = { client: { on: (_type: string, h: (f: ServerFrame) => void) => ((handler = h), () => (handler = undefined)) } } as unknown as Live;
  return { api, live, calls, send: (f: ServerFrame) => handler?.(f), failNext: (v: boolean) => (fail = v) };
}

describe('feed store', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('gathers a burst of live frames into one update, newest first, without duplicates', () => {
    const f = fakes(0);
    const feed = createFeed(f.api, f.live);
    const updates = vi.fn();
    feed.state.subscribe(updates);
    for (let id = 1; id <= 500; id++) f.send(frame(id));
    f.send(frame(250));
    expect(feed.state.get().rows).toHaveLength(0);
    vi.advanceTimersByTime(200);
    expect(updates).toHaveBeenCalledTimes(1);
    const rows = feed.state.get().rows;
    expect(rows).toHaveLength(500);
    expect(rows[0]!.id).toBe(500);
    expect(rows.at(-1)!.id).toBe(1);
    feed.dispose();
  });

  it("keeps the hub's capped total as a lower bound", async () => {
    const f = fakes(25_000);
    const feed = createFeed(f.api, f.live);
    await feed.loadOlder();
    expect(feed.state.get()).toMatchObject({ hubTotal: 10_000, hubTotalCapped: true });
    feed.dispose();
  });

  it('pages older history below the live rows until the hub has no more', async () => {
    const f = fakes(450);
    const feed = createFeed(f.api, f.live);
    // Live rows after the session began: 451 and 452.
    f.send(frame(451));
    f.send(frame(452));
    vi.advanceTimersByTime(200);
    await feed.loadOlder();
    expect(f.calls[0]).toEqual({ limit: PAGE_SIZE, before_id: 451 });
    expect(feed.state.get()).toMatchObject({ history: 'more', hubTotal: 450, hubTotalCapped: false });
    await feed.loadOlder();
    await feed.loadOlder();
    const { rows, history } = feed.state.get();
    expect(history).toBe('done');
    expect(rows).toHaveLength(452);
    expect(new Set(rows.map((r) => r.id)).size).toBe(452);
    await feed.loadOlder();
    expect(f.calls).toHaveLength(3);
    feed.dispose();
  });

  it('asks for one page at a time, and may ask for the next as soon as one is in', async () => {
    const f = fakes(1000);
    const feed = createFeed(f.api, f.live);
    const again: Array<Promise<void>> = [];
    // A view that asks again the moment a page arrives (as the list does when it is still at its end).
    feed.state.subscribe(() => {
      if (feed.state.get().history === 'more' && again.length < 2) again.push(feed.loadOlder());
    });
    await Promise.all([feed.loadOlder(), feed.loadOlder()]);
    await Promise.all(again);
    expect(f.calls.map((c) => c['before_id'])).toEqual([undefined, 801, 601]);
    feed.dispose();
  });

  it('stops paging at the memory cap, keeping the newest rows', async () => {
    const f = fakes(1000);
    const feed = createFeed(f.api, f.live, 300);
    await feed.loadOlder();
    await feed.loadOlder();
    expect(feed.state.get()).toMatchObject({ history: 'full' });
    expect(feed.state.get().rows).toHaveLength(300);
    await feed.loadOlder();
    expect(f.calls).toHaveLength(2);
    f.send(frame(1001));
    vi.advanceTimersByTime(200);
    expect(feed.state.get().rows[0]!.id).toBe(1001);
    expect(feed.state.get().rows).toHaveLength(300);
    expect(feed.state.get().hubTotal).toBe(1001);
    feed.dispose();
  });

  it('keeps a failed page as an error to show, and tries again when asked', async () => {
    const f = fakes(10);
    const feed = createFeed(f.api, f.live);
    f.failNext(true);
    await feed.loadOlder();
    expect(feed.state.get()).toMatchObject({ history: 'error' });
    expect(String(feed.state.get().historyError)).toContain('the hub is down');
    f.failNext(false);
    await feed.loadOlder();
    expect(feed.state.get()).toMatchObject({ history: 'done', historyError: undefined });
    expect(feed.state.get().rows).toHaveLength(10);
    feed.dispose();
  });
});
