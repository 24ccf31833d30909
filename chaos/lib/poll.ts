// A bounded poll of a generator's state: the orchestrator's way to wait for "every client is back"
// without sleeping a fixed time.
import type { Generator } from '../../bench/lib/spawn.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Calls `gen.status` until `done(status)` or `timeoutMs`; answers the last status and the time taken. */
export async function until<S>(gen: Generator, done: (s: S) => boolean, timeoutMs: number, everyMs = 100): Promise<{ status: S; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    const status = await gen.call<S>('status', {}, 10_000);
    if (done(status) || performance.now() - t0 > timeoutMs) return { status, ms: performance.now() - t0 };
    await sleep(everyMs);
  }
}

/** Calls `check` until it answers true or `timeoutMs` passes; answers whether it did and the time taken. */
export async function pollUntil(check: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<{ done: boolean; ms: number }> {
  const t0 = performance.now();
  for (;;) {
    if (await check()) return { done: true, ms: performance.now() - t0 };
    if (performance.now() - t0 > timeoutMs) return { done: false, ms: performance.now() - t0 };
    await sleep(everyMs);
  }
}
