// The in-memory presence log behind the Overview's strips: spans from transitions, clipped to the
// window, unknown before the hub started, and bounded however much an agent flaps.
import { describe, expect, it } from 'vitest';
import { createPresenceLog } from '../../../src/services/statsPresence.js';

function clockAt(start: string) {
  let now = Date.parse(start);
  return {
    clock: () => new Date(now).toISOString(),
    advance: (minutes: number) => void (now += minutes * 60_000),
  };
}

const agent = { id: 7, username: 'weather' };

describe('presence log', () => {
  it('turns transitions into online spans, the open one last, clipped to the window', () => {
    const time = clockAt('2026-01-05T10:00:00.000Z');
    const log = createPresenceLog({ clock: time.clock });
    time.advance(10);
    log.record(7, true);
    time.advance(20);
    log.record(7, true); // already online: no new span
    time.advance(10);
    log.record(7, false);
    time.advance(30);
    log.record(7, true);
    time.advance(5);
    const strips = log.strips([agent, { id: 8, username: 'never' }], 1);
    expect(strips.known_from).toBe('2026-01-05T10:00:00.000Z');
    expect(strips.from).toBe('2026-01-05T10:15:00.000Z');
    expect(strips.agents).toEqual([
      {
        id: 7,
        username: 'weather',
        online: [
          { from: '2026-01-05T10:15:00.000Z', to: '2026-01-05T10:40:00.000Z' },
          { from: '2026-01-05T11:10:00.000Z', to: null },
        ],
      },
      { id: 8, username: 'never', online: [] },
    ]);
  });

  it('forgets transitions older than the window it keeps, but not the state at its start', () => {
    const time = clockAt('2026-01-05T00:00:00.000Z');
    const log = createPresenceLog({ clock: time.clock, keepMs: 60 * 60_000 });
    log.record(7, true);
    for (let i = 0; i < 10; i++) {
      time.advance(30);
      log.record(7, i % 2 === 0 ? false : true);
    }
    // Online since the last transition; the hour kept has one span that ends and one still open.
    time.advance(1);
    expect(log.strips([agent], 1).agents[0]!.online).toEqual([
      { from: '2026-01-05T04:01:00.000Z', to: '2026-01-05T04:30:00.000Z' },
      { from: '2026-01-05T05:00:00.000Z', to: null },
    ]);
    // What was forgotten is gone even from a wider look: the oldest span left starts within the kept hour.
    expect(log.strips([agent], 24).agents[0]!.online[0]!.from >= '2026-01-05T03:30:00.000Z').toBe(true);
  });

  it('records through the router’s presence port and passes each change on', () => {
    const time = clockAt('2026-01-05T00:00:00.000Z');
    const log = createPresenceLog({ clock: time.clock });
    const seen: string[] = [];
    const port = log.observe({ online: (u, key) => seen.push(`on ${u.id} (${key})`), offline: (u) => seen.push(`off ${u.id}`) });
    port.online({ id: 7, username: 'weather', role: 'AGENT' }, 41);
    time.advance(1);
    port.offline({ id: 7, username: 'weather', role: 'AGENT' });
    expect(seen).toEqual(['on 7 (41)', 'off 7']);
    expect(log.strips([agent], 1).agents[0]!.online).toEqual([{ from: '2026-01-05T00:00:00.000Z', to: '2026-01-05T00:01:00.000Z' }]);
  });
});
