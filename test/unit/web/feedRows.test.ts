// The feed's rows: live frames and stored messages read alike, and the merge keeps them newest
// first, one per id, within the cap (history pages and live frames overlap).
import type { MessageView, ServerFrame } from '../../../src/client/index.js';
import { describe, expect, it } from 'vitest';
import { countNewerThan, mergeRows, rowOfFrame, rowOfMessage, type FeedRow } from '../../../web/src/state/feedRows.js';

function row(id: number, content = `row ${id}`): FeedRow {
  return {
    id,
    type: 'SYSTEM_LOG',
    sender_id: 3,
    sender_name: 'agent',
    sender_role: 'AGENT',
    timestamp: '2026-01-05T10:00:00.000Z',
    level: 'INFO',
    content,
    payload: { level: 'INFO', content },
    haystack: content,
  };
}
const ids = (rows: readonly FeedRow[]) => rows.map((r) => r.id);

describe('feed rows', () => {
  it('reads a live SYSTEM_LOG and a report as the hub stores them', () => {
    const log = rowOfFrame({
      id: 7,
      type: 'SYSTEM_LOG',
      sender_id: 3,
      sender_name: 'Bot',
      sender_role: 'AGENT',
      timestamp: 't',
      payload: { level: 'ERROR', content: 'Disk full' },
    } as ServerFrame);
    expect(log).toMatchObject({ id: 7, level: 'ERROR', content: 'Disk full', haystack: 'bot\nsystem_log\ndisk full' });
    const weather = rowOfFrame({
      id: 8,
      type: 'WEATHER_UPDATE',
      sender_id: 3,
      sender_name: 'w',
      sender_role: 'AGENT',
      timestamp: 't',
      payload: { location: 'Oslo', temperature_c: 2 },
    } as ServerFrame);
    expect(weather).toMatchObject({ level: 'INFO', content: '{"location":"Oslo","temperature_c":2}' });
    const text = rowOfFrame({
      id: 9,
      type: 'CODE_REVIEW',
      sender_id: 3,
      sender_name: 'r',
      sender_role: 'AGENT',
      timestamp: 't',
      payload: 'looks fine',
    } as ServerFrame);
    expect(text).toMatchObject({ level: 'INFO', content: 'looks fine' });
  });

  it('skips chat, presence and frames without a stored id', () => {
    expect(
      rowOfFrame({ id: 1, type: 'CHAT', sender_id: 3, sender_name: 'a', sender_role: 'AGENT', timestamp: 't', payload: 'hi' } as ServerFrame),
    ).toBeUndefined();
    expect(
      rowOfFrame({
        type: 'SYSTEM_LOG',
        sender_id: 3,
        sender_name: 'a',
        sender_role: 'AGENT',
        timestamp: 't',
        payload: { level: 'INFO', content: 'x' },
      } as ServerFrame),
    ).toBeUndefined();
    expect(rowOfMessage({ id: 1, type: 'CHAT' } as MessageView)).toBeUndefined();
  });

  it('keeps a stored message’s level, content and target', () => {
    const view: MessageView = {
      id: 4,
      sender_id: 3,
      sender_name: 'a',
      sender_role: 'AGENT',
      target_id: 1,
      type: 'SECURITY_ALERT',
      payload: { severity: 'low', content: 'ok' },
      timestamp: 't',
      agent_id: 'a',
      level: 'INFO',
      content: 'ok',
    };
    expect(rowOfMessage(view)).toMatchObject({ id: 4, target_id: 1, level: 'INFO', content: 'ok' });
  });

  it('puts live rows on top, deduplicated', () => {
    const held = [row(5), row(3), row(1)];
    expect(ids(mergeRows(held, [row(7), row(6), row(7)], 100))).toEqual([7, 6, 5, 3, 1]);
  });

  it('merges an overlapping history page in order, the row already held winning', () => {
    const held = [row(9), row(8, 'live'), row(6)];
    const merged = mergeRows(held, [row(8, 'history'), row(7), row(6), row(5), row(4)], 100);
    expect(ids(merged)).toEqual([9, 8, 7, 6, 5, 4]);
    expect(merged[1]!.content).toBe('live');
  });

  it('returns the same array when nothing is new', () => {
    const held = [row(3), row(2)];
    expect(mergeRows(held, [row(2), row(3)], 100)).toBe(held);
    expect(mergeRows(held, [], 100)).toBe(held);
  });

  it('keeps the newest rows at the cap', () => {
    expect(ids(mergeRows([row(3), row(2), row(1)], [row(5), row(4)], 4))).toEqual([5, 4, 3, 2]);
    expect(ids(mergeRows([row(5), row(3)], [row(4), row(2), row(1)], 3))).toEqual([5, 4, 3]);
    expect(ids(mergeRows([], [row(1), row(2), row(3)], 2))).toEqual([3, 2]);
  });

  it('counts the rows newer than an id', () => {
    const rows = [row(9), row(7), row(5), row(3)];
    expect(countNewerThan(rows, 9)).toBe(0);
    expect(countNewerThan(rows, 8)).toBe(1);
    expect(countNewerThan(rows, 5)).toBe(2);
    expect(countNewerThan(rows, 0)).toBe(4);
    expect(countNewerThan([], 3)).toBe(0);
  });
});
