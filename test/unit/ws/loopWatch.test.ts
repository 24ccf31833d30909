// The loop watch counts the time the hub's own event loop was held, a hold under way included: the
// reading taken inside the run that holds the loop already has it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { startLoopWatch, type LoopWatch } from '../../../src/ws/loopWatch.js';

const INTERVAL_MS = 20;
const HOLD_MS = 300;

/** Holds the loop (a synchronous busy wait) for `ms`. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Resolves on the watch's next tick (timers run in order of their due time). */
const nextTick = () => new Promise<void>((resolve) => setTimeout(resolve, INTERVAL_MS + 1));

const logged: Array<{ heldMs: number }> = [];
const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as { heldMs: number }) });

let watch: LoopWatch | undefined;
afterEach(() => {
  watch?.stop();
  vi.useRealTimers();
  logged.length = 0;
});

describe('the loop watch', () => {
  it('counts a hold under way in the run that holds the loop, and keeps it once the loop turns', async () => {
    watch = startLoopWatch({ logger, intervalMs: INTERVAL_MS, logFromMs: HOLD_MS / 2 });
    await nextTick();
    const before = watch.heldMs();
    holdLoop(HOLD_MS);
    // Within the held run: the hold so far, less up to one tick (it counts from the tick's due time).
    const during = watch.heldMs() - before;
    expect(during).toBeGreaterThanOrEqual(HOLD_MS - INTERVAL_MS);
    expect(during).toBeLessThanOrEqual(HOLD_MS + 50);
    await nextTick();
    // The tick takes the hold over: nothing of it is lost or counted twice (a busy machine may add a little).
    expect(watch.heldMs() - before).toBeGreaterThanOrEqual(during);
    expect(logged.some((l) => l.heldMs >= HOLD_MS - INTERVAL_MS)).toBe(true);
  });

  it('counts nothing while every tick comes on time', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    watch = startLoopWatch({ logger, intervalMs: INTERVAL_MS, logFromMs: HOLD_MS });
    vi.advanceTimersByTime(100 * INTERVAL_MS + INTERVAL_MS / 2);
    expect(watch.heldMs()).toBe(0);
    expect(logged).toEqual([]);
  });
});
