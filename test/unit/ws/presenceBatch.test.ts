// A dashboard's PRESENCE batch: the latest change per agent, in the order of their last change, one
// frame per interval, nothing when nothing changed, nothing after the socket is gone.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { serverFrame } from '../../../src/protocol/serverFrames.js';
import { presenceFrame } from '../../../src/protocol/frames.js';
import { PresenceBatch } from '../../../src/ws/presenceBatch.js';

const change = (userId: number, online: boolean) =>
  presenceFrame(
    { user_id: userId, username: `agent-${userId}`, status: online ? 'ONLINE' : 'OFFLINE', online, last_seen_at: null, last_report: null },
    '2026-12-07T10:00:00.000Z',
  );

describe('presence batch', () => {
  afterEach(() => vi.useRealTimers());

  it('sends the latest change per agent once per interval, as a frame the client schema reads', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const batch = new PresenceBatch(
      (text) => sent.push(text),
      () => '2026-12-07T10:00:00.250Z',
      250,
    );
    batch.add(1, change(1, true));
    batch.add(2, change(2, true));
    batch.add(1, change(1, false));
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(250);
    expect(sent).toHaveLength(1);
    const frame = serverFrame.parse(JSON.parse(sent[0]!));
    if (frame.type !== 'PRESENCE_BATCH') throw new Error(`not a batch: ${frame.type}`);
    expect(frame.payload.frames.map((f) => [f.payload.user_id, f.payload.online])).toEqual([
      [2, true],
      [1, false],
    ]);
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(1);
  });

  it('sends nothing after stop', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const batch = new PresenceBatch((text) => sent.push(text));
    batch.add(1, change(1, true));
    batch.stop();
    vi.advanceTimersByTime(1000);
    expect(sent).toEqual([]);
  });
});
