// The presence back-fill after a Redis outage: it reads the agents changed since the outage began
// (minus the clock-skew margin), hands them to this node's sockets as PRESENCE frames, leaves out an
// agent whose live PRESENCE passed during the read (newer than the read), reads once more after the
// settle time handing only what changed, and keeps its start when a read fails.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPresenceBackfill } from '../../../../src/cluster/presence/backfill.js';
import type { Delivery } from '../../../../src/delivery/types.js';
import type { PresenceRow } from '../../../../src/store/batchWriter.js';

const agent = (id: number, online: boolean, at = '2026-01-01T00:00:10.000Z'): PresenceRow => ({
  id,
  username: `agent-${id}`,
  role: 'AGENT',
  status: online ? 'ONLINE' : 'OFFLINE',
  online: online ? 1 : 0,
  last_seen_at: at,
  last_report: online ? 'websocket_connected' : 'websocket_disconnected',
});

function setup() {
  let rows: PresenceRow[] = [];
  const reads: string[] = [];
  let release: (() => void) | undefined;
  let failing = false;
  const handed: Delivery[][] = [];
  const backfill = createPresenceBackfill({
    repo: {
      async agentPresenceSince(since) {
        reads.push(since);
        if (failing) throw new Error('connection refused');
        const snapshot = rows;
        if (release === undefined) return snapshot;
        await new Promise<void>((resolve) => (release = resolve));
        return snapshot;
      },
    },
    clock: () => '2026-01-01T00:01:00.000Z',
    log: pino({ level: 'silent' }),
    settleMs: 3000,
    hand: (deliveries) => handed.push(deliveries),
  });
  return {
    backfill,
    reads,
    handed,
    set: (next: PresenceRow[]) => (rows = next),
    fail: (on: boolean) => (failing = on),
    /** The next read waits until `finish` is called. */
    hold: () => (release = () => undefined),
    finish: () => {
      const r = release;
      release = undefined;
      r?.();
    },
  };
}

const flush = () => vi.advanceTimersByTimeAsync(0);
const states = (handed: Delivery[][]) =>
  handed.flat().map((d) => {
    const frame = JSON.parse(d.text) as { sender_id: number; payload: { online: boolean } };
    return [frame.sender_id, frame.payload.online];
  });

describe('presence back-fill after a Redis outage', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reads nothing when Redis comes up without an outage (the first connect)', async () => {
    const t = setup();
    t.backfill.up();
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.reads).toEqual([]);
  });

  it('hands the agents changed since the outage began (30 s earlier, for skew) as PRESENCE to the humans', async () => {
    const t = setup();
    t.backfill.down();
    t.set([agent(7, false), agent(8, true)]);
    t.backfill.up();
    await flush();
    expect(t.reads).toEqual(['2026-01-01T00:00:30.000Z']);
    expect(states(t.handed)).toEqual([
      [7, false],
      [8, true],
    ]);
    const d = t.handed[0]![0]!;
    expect(d).toMatchObject({ type: 'PRESENCE', senderId: 7, audience: { broadcast: 'humans' } });
    expect(JSON.parse(d.text)).toMatchObject({ type: 'PRESENCE', payload: { user_id: 7, status: 'OFFLINE', last_report: 'websocket_disconnected' } });
  });

  it('leaves out an agent whose live PRESENCE passed while the read was under way', async () => {
    const t = setup();
    t.backfill.down();
    t.set([agent(7, false), agent(8, true)]);
    t.hold();
    t.backfill.up();
    await flush();
    // Agent 7 came back: its live frame (newer than the read) passes this node first.
    t.backfill.seen([{ type: 'PRESENCE', senderId: 7 }]);
    t.finish();
    await flush();
    expect(states(t.handed)).toEqual([[8, true]]);
  });

  it('reads once more after the settle time, handing only what changed, then forgets the outage', async () => {
    const t = setup();
    t.backfill.down();
    t.set([agent(7, false), agent(8, true)]);
    t.backfill.up();
    await flush();
    t.set([agent(7, false), agent(8, false, '2026-01-01T00:00:59.000Z')]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(t.reads).toHaveLength(2);
    expect(states(t.handed)).toEqual([
      [7, false],
      [8, true],
      [8, false],
    ]);
    t.backfill.up();
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.reads).toHaveLength(2);
  });

  it('keeps the outage start when a read fails, and reads from it at the next return', async () => {
    const t = setup();
    t.backfill.down();
    t.fail(true);
    t.backfill.up();
    await vi.advanceTimersByTimeAsync(3000);
    expect(t.handed).toEqual([]);
    t.fail(false);
    t.set([agent(7, false)]);
    t.backfill.down();
    t.backfill.up();
    await flush();
    expect(t.reads.at(-1)).toBe('2026-01-01T00:00:30.000Z');
    expect(states(t.handed)).toEqual([[7, false]]);
  });
});
