// The stalled-dashboards check reads the hub's 4011 closes by user and judges a reading dashboard's
// cut-off by its own process's loop stalls: a starved reader is reported apart, a reader whose process
// kept turning is a fault of the hub.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { longestStall, LoopStallWatch, LOOP_STALL_FLOOR_MS } from '../../../bench/gen/loopStalls.js';
import { judgeReaderCutOffs, readerAllowanceMs, readersVerdict, slowConsumerCloses } from '../../../chaos/lib/slowConsumers.js';
import { STALL_MS } from '../../../src/ws/open.js';
import { READ_WINDOW_BYTES } from '../../../src/ws/outlet.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function hubLog(lines: object[]): string {
  const dir = mkdtempSync(join(os.tmpdir(), 'slow-consumers-'));
  dirs.push(dir);
  const file = join(dir, 'hub.log');
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

describe('the hub log’s slow-consumer closes', () => {
  it('lists each 4011 close with its user, connection and time, and nothing else', () => {
    const file = hubLog([
      { level: 'info', time: '2026-12-07T20:29:31.942Z', conn: 16, user: 'reader-3', code: 4011, msg: 'websocket closed' },
      { level: 'info', time: '2026-12-07T20:29:32.000Z', conn: 40, user: 'frozen-1', code: 4011, msg: 'websocket closed' },
      { level: 'info', time: '2026-12-07T20:29:33.000Z', conn: 41, user: 'frozen-2', code: 1000, msg: 'websocket closed' },
      { level: 'info', time: '2026-12-07T20:29:34.000Z', conn: 42, user: 'frozen-2', role: 'MEMBER', msg: 'websocket connected' },
    ]);
    expect(slowConsumerCloses(file)).toEqual([
      { user: 'reader-3', conn: 16, at: Date.parse('2026-12-07T20:29:31.942Z') },
      { user: 'frozen-1', conn: 40, at: Date.parse('2026-12-07T20:29:32.000Z') },
    ]);
  });
});

describe('a reader’s cut-off', () => {
  const cutAt = 1_000_000;
  const cut = [{ user: 'reader-0', conn: 1, at: cutAt }];

  it('allows a reader the read window’s worth of the fan-out, at most STALL_MS', () => {
    expect(readerAllowanceMs(READ_WINDOW_BYTES * 10)).toBe(100);
    expect(readerAllowanceMs(1)).toBe(STALL_MS);
  });

  it('is put down to starvation when the reader’s process stalled at least the allowance while the hub judged it', () => {
    const [judged] = judgeReaderCutOffs(cut, [{ end: cutAt - 500, ms: 120 }], 100);
    expect(judged).toMatchObject({ stallMs: 120, starved: true });
  });

  it('is the hub’s fault when the process only stalled briefly, or long before', () => {
    const stalls = [
      { end: cutAt - 500, ms: 60 },
      { end: cutAt - 2 * STALL_MS - 1_000, ms: 900 },
    ];
    const [judged] = judgeReaderCutOffs(cut, stalls, 100);
    expect(judged).toMatchObject({ stallMs: 60, starved: false });
  });

  it('counts a stall still going on when the hub closed the socket', () => {
    expect(longestStall([{ end: cutAt + 200, ms: 700 }], cutAt - 3_000, cutAt)).toBe(700);
    expect(longestStall([{ end: cutAt + 900, ms: 700 }], cutAt - 3_000, cutAt)).toBe(0);
  });
});

describe('the verdict on the reading dashboards', () => {
  const at = 1_000_000;
  const starved = (conn: number) => ({ user: 'reader-0', conn, at, stallMs: 500, starved: true });
  const keptUp = (conn: number) => ({ user: 'reader-0', conn, at, stallMs: 0, starved: false });

  it('passes when no reader was cut off while its process kept up, the starved ones excused', () => {
    const verdict = readersVerdict('readers', [starved(1), starved(2)], 4);
    expect(verdict).toMatchObject({ pass: true, measured: 'none (2 measured)' });
  });

  it('fails on a reader cut off while its process kept up', () => {
    expect(readersVerdict('readers', [keptUp(1), starved(2)], 4).pass).toBe(false);
  });

  it('fails when every reader was cut off while starved: nothing was measured', () => {
    const verdict = readersVerdict('readers', [starved(1), starved(2), starved(3), starved(4)], 4);
    expect(verdict.pass).toBe(false);
    expect(verdict.measured).toContain('nothing measured');
  });
});

describe('the loop stall watch', () => {
  it('records a stretch the event loop was blocked', async () => {
    const watch = new LoopStallWatch();
    watch.start();
    try {
      const clock = () => performance.timeOrigin + performance.now();
      const blockedAt = clock();
      while (clock() - blockedAt < 4 * LOOP_STALL_FLOOR_MS);
      const blockedUntil = clock();
      // The blocked stretch, less at most one tick before it; other stalls of a busy machine may come too.
      const covering = () => watch.list().filter((s) => s.end >= blockedUntil && s.ms >= 3 * LOOP_STALL_FLOOR_MS);
      await vi.waitFor(() => expect(covering().length).toBeGreaterThan(0));
    } finally {
      watch.stop();
    }
  });
});
