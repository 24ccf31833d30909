// The overview's reading of the data: which message waits for an answer, the order and counts of
// agents, and the agent search.
import { describe, expect, it } from 'vitest';
import { applyChat, oldestWaiting, waitingIn, type ChatLike, type WaitingByPeer } from '../../../web/src/pages/overview/unanswered.js';
import { countPresence, matchesAgent, sortAgents } from '../../../web/src/pages/overview/agents.js';

const ME = 1;
const AGENT = 5;
const chat = (id: number, sender: number, target: number, payload = `m${id}`, type = 'CHAT'): ChatLike => ({
  id,
  type,
  sender_id: sender,
  target_id: target,
  payload,
  timestamp: `2026-01-01T00:00:${String(id).padStart(2, '0')}.000Z`,
});

describe('waiting for an answer', () => {
  it('is the oldest of my messages after the peer’s last reply', () => {
    expect(waitingIn([chat(1, ME, AGENT), chat(2, AGENT, ME), chat(3, ME, AGENT), chat(4, ME, AGENT)], ME, AGENT)).toMatchObject({
      peerId: AGENT,
      id: 3,
      text: 'm3',
    });
  });

  it('is nothing when the peer spoke last, or nothing was said', () => {
    expect(waitingIn([chat(1, ME, AGENT), chat(2, AGENT, ME)], ME, AGENT)).toBeUndefined();
    expect(waitingIn([], ME, AGENT)).toBeUndefined();
  });

  it('ignores approval requests in the history', () => {
    expect(waitingIn([chat(1, ME, AGENT), chat(2, AGENT, ME, '{}', 'AUTH_REQUEST')], ME, AGENT)).toMatchObject({ id: 1 });
  });

  it('follows live chat: my message starts waiting, the peer’s reply ends it', () => {
    const machines = (id: number) => id === AGENT || id === 2;
    let map: WaitingByPeer = new Map();
    map = applyChat(map, chat(10, ME, AGENT), ME, machines);
    expect(map.get(AGENT)).toMatchObject({ id: 10 });
    const same = applyChat(map, chat(11, ME, AGENT), ME, machines);
    expect(same).toBe(map);
    map = applyChat(map, chat(12, ME, 2), ME, machines);
    expect(oldestWaiting(map)).toMatchObject({ peerId: AGENT, id: 10 });
    map = applyChat(map, chat(13, AGENT, ME), ME, machines);
    expect([...map.keys()]).toEqual([2]);
    // Chat with another human, or between others, is not about waiting agents.
    expect(applyChat(map, chat(14, ME, 7), ME, machines)).toBe(map);
    expect(applyChat(map, { ...chat(15, AGENT, ME), type: 'CHAT_STREAM' }, ME, machines)).toBe(map);
  });
});

describe('agents on the overview', () => {
  const agent = (username: string, online: boolean, last_seen_at: string | null = null, status = online ? 'ONLINE' : 'OFFLINE') => ({
    username,
    online,
    status,
    last_seen_at,
    agent_kind: 'echo',
    runtime_kind: null,
    description: null,
    last_report: `report of ${username}`,
  });

  it('lists online agents first, then the most recently seen', () => {
    const sorted = sortAgents([agent('d', false, '2026-01-01'), agent('b', true), agent('c', false, '2026-02-01'), agent('a', true), agent('e', false)]);
    expect(sorted.map((a) => a.username)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('counts by presence and by status value', () => {
    expect(countPresence([agent('a', true), agent('b', false), agent('c', true, null, 'BUSY')])).toEqual({
      total: 3,
      online: 2,
      offline: 1,
      byStatus: [
        ['BUSY', 1],
        ['OFFLINE', 1],
        ['ONLINE', 1],
      ],
    });
  });

  it('searches every word in name, kind, status and report', () => {
    expect(matchesAgent(agent('weather-bot', true), 'WEATHER echo')).toBe(true);
    expect(matchesAgent(agent('weather-bot', true), 'report of weather')).toBe(true);
    expect(matchesAgent(agent('weather-bot', true), 'weather review')).toBe(false);
    expect(matchesAgent(agent('x', false), '  ')).toBe(true);
  });
});
