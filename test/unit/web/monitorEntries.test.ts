// The monitor's entries: directives told apart from the rest, one copy of each message whichever
// way it arrived (history page, live copy, a resumed socket's replay), in the store's order.
import { describe, expect, it } from 'vitest';
import { answeredDirectives, fromHistory, fromMonitorPayload, mergeEntries, oldestId, type MonitorEntry } from '../../../web/src/state/monitorEntries.js';

const AGENT = 7;
const butler = { sender_id: 2, sender_name: 'Butler', sender_role: 'BUTLER' };
const agent = { sender_id: AGENT, sender_name: 'worker', sender_role: 'AGENT' };
const at = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
const row = (id: number, from: typeof butler, payload: string) => fromHistory(AGENT, { id, ...from, payload, timestamp: at(id) });
const live = (id: number | undefined, from: typeof butler, payload: unknown, second = id ?? 0) =>
  fromMonitorPayload({ agent_id: AGENT, type: 'CHAT', ...from, payload, timestamp: at(second), ...(id === undefined ? {} : { id }) })!;

describe('monitor entries', () => {
  it('tells Butler’s directives from its other messages and from the agent’s', () => {
    expect(row(1, butler, '[DIRECTIVE] reindex search')).toMatchObject({ kind: 'directive', text: 'reindex search', key: 'id:1', agentId: AGENT });
    expect(row(2, butler, 'what is your queue length?')).toMatchObject({ kind: 'butler', text: 'what is your queue length?' });
    // Only Butler sends directives: an agent quoting one is still the agent talking.
    expect(row(3, agent, '[DIRECTIVE] reindex search')).toMatchObject({ kind: 'agent', text: '[DIRECTIVE] reindex search' });
  });

  it('files a live copy under its agent, keyed by id, and skips one that names no agent', () => {
    expect(live(4, agent, '3 jobs')).toMatchObject({ key: 'id:4', id: 4, kind: 'agent', text: '3 jobs', senderName: 'worker' });
    expect(live(5, butler, { structured: true }).text).toBe('{"structured":true}');
    expect(fromMonitorPayload({ agent_id: null, type: 'CHAT', ...butler, payload: 'x', timestamp: at(1) })).toBeUndefined();
    expect(live(undefined, butler, 'no id', 9).key).toBe(`at:${at(9)}:2:no id`);
  });

  it('keeps one copy of a message seen in the history and live, and the same list when nothing is new', () => {
    const history = [row(10, butler, 'q'), row(11, agent, 'a')];
    const merged = mergeEntries(history, [live(11, agent, 'a'), live(12, butler, 'next')]);
    expect(merged.map((e) => e.id)).toEqual([10, 11, 12]);
    expect(mergeEntries(merged, [live(12, butler, 'next'), row(10, butler, 'q')])).toBe(merged);
    expect(mergeEntries(merged, [live(13, agent, 'x'), live(13, agent, 'x')]).map((e) => e.id)).toEqual([10, 11, 12, 13]);
  });

  it('puts an older page before what is held and orders copies without an id by time', () => {
    const held = [row(20, butler, 'q'), row(21, agent, 'a')];
    const older = [row(18, butler, 'q0'), row(19, agent, 'a0')];
    expect(mergeEntries(held, older).map((e) => e.id)).toEqual([18, 19, 20, 21]);
    const noId = live(undefined, agent, 'late', 30);
    const early = live(undefined, agent, 'early', 25);
    expect(mergeEntries([noId], [early]).map((e) => e.text)).toEqual(['early', 'late']);
  });

  it('pairs an answer with the directive of the same stream id, from the history or live', () => {
    const directive = fromHistory(AGENT, { id: 20, ...butler, payload: '[DIRECTIVE] reindex search', timestamp: at(20), stream_id: 'butler-1' });
    const question = fromHistory(AGENT, { id: 21, ...butler, payload: 'how long?', timestamp: at(21), stream_id: 'butler-2' });
    const answer = fromMonitorPayload({ agent_id: AGENT, type: 'CHAT', ...agent, payload: 'reindexed', timestamp: at(22), id: 22, stream_id: 'butler-1' })!;
    const other = fromMonitorPayload({ agent_id: AGENT, type: 'CHAT', ...agent, payload: 'a minute', timestamp: at(23), id: 23, stream_id: 'butler-2' })!;
    const stray = fromMonitorPayload({ agent_id: AGENT, type: 'CHAT', ...agent, payload: 'hello', timestamp: at(24), id: 24 })!;
    const paired = answeredDirectives([directive, question, answer, other, stray]);
    expect([...paired.keys()]).toEqual(['id:22']);
    expect(paired.get('id:22')).toBe(directive);
  });

  it('pages back from the smallest id held', () => {
    const entries: MonitorEntry[] = [live(undefined, butler, 'x', 1), row(40, butler, 'q'), row(38, agent, 'a')];
    expect(oldestId(entries)).toBe(38);
    expect(oldestId([])).toBeUndefined();
  });
});
