// The agents a node sees ONLINE, kept from the PRESENCE frames the hub serialises: a username that
// spells the online flag cannot pass for it, and the count follows every change.
import { describe, expect, it } from 'vitest';
import { createOnlineView } from '../../../src/cluster/presence/online.js';
import { presenceFrame } from '../../../src/protocol/frames.js';

const presence = (userId: number, username: string, online: boolean) => ({
  type: 'PRESENCE',
  senderId: userId,
  text: presenceFrame(
    { user_id: userId, username, status: online ? 'ONLINE' : 'OFFLINE', online, last_seen_at: null, last_report: `"online":true` } as never,
    '2026-12-07T00:00:00.000Z',
  ),
});

describe('the online view', () => {
  it('counts the agents PRESENCE frames say are online, seeded from the store', () => {
    const view = createOnlineView();
    view.seed([1, 2]);
    expect(view.count).toBe(2);
    view.note([presence(3, 'c', true), { type: 'CHAT', senderId: 4, text: '{"online":true}' }, presence(1, 'a', false)]);
    expect([view.isOnline(1), view.isOnline(2), view.isOnline(3), view.isOnline(4), view.count]).toEqual([false, true, true, false, 2]);
  });

  it('is not fooled by a username or report that spells the flag', () => {
    const view = createOnlineView();
    view.note([presence(7, '"online":true', false), presence(8, 'x","online":true,"y":"', false)]);
    expect([view.isOnline(7), view.isOnline(8), view.count]).toEqual([false, false, 0]);
  });
});
