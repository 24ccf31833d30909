// The overview's reading of the data: the order and counts of agents, and the agent search (which
// message waits for an answer is the hub's query now: test/integration/stats.test.ts).
import { describe, expect, it } from 'vitest';
import { countPresence, matchesAgent, reportCount, sortAgents } from '../../../web/src/pages/overview/agents.js';

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

  it("says what an agent's per-hour line counts: its logs and reports", () => {
    expect(reportCount(1)).toBe('1 report');
    expect(reportCount(0)).toBe('0 reports');
    expect(reportCount(1350)).toBe('1,350 reports');
  });

  it('searches every word in name, kind, status and report', () => {
    expect(matchesAgent(agent('weather-bot', true), 'WEATHER echo')).toBe(true);
    expect(matchesAgent(agent('weather-bot', true), 'report of weather')).toBe(true);
    expect(matchesAgent(agent('weather-bot', true), 'weather review')).toBe(false);
    expect(matchesAgent(agent('x', false), '  ')).toBe(true);
  });
});
