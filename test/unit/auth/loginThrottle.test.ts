// The failed-login throttle in one process (no Redis): reservations made before the hash, given
// back on success or when the check could not be made, the cap on logins in progress, the
// per-account lock, and the window, on a clock the test moves.
import { describe, expect, it } from 'vitest';
import { createLoginThrottle } from '../../../src/auth/loginThrottle.js';

const OPTIONS = { maxFailures: 3, maxFailuresPerAddress: 6, maxFailuresPerAccount: 5, windowSeconds: 60 };

function throttleAt(start = 1_000_000, options: Partial<typeof OPTIONS & { maxInProgress: number }> = {}) {
  const clock = { now: start };
  const throttle = createLoginThrottle({ ...OPTIONS, ...options, now: () => clock.now });
  const fail = async (address: string, name: string) => (await throttle.reserve(address, name)).failed();
  return { clock, throttle, fail };
}
const refused = (promise: Promise<unknown>, message: RegExp) =>
  expect(promise).rejects.toMatchObject({ kind: 'rate_limited', status: 429, message: expect.stringMatching(message) });

describe('login throttle (memory)', () => {
  it('grants exactly the budget to 100 attempts reserved at once', async () => {
    const { throttle } = throttleAt(undefined, { maxInProgress: 100 });
    const answers = await Promise.allSettled(Array.from({ length: 100 }, () => throttle.reserve('10.0.0.1', 'alice')));
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
    for (const a of answers) if (a.status === 'fulfilled') a.value.failed();
    await refused(throttle.reserve('10.0.0.1', 'alice'), /^too many failed logins; try again in 60 s$/);
  });

  it('checks at most maxInProgress logins of one name from one address at once', async () => {
    const { throttle } = throttleAt(undefined, { maxInProgress: 2 });
    const first = await throttle.reserve('10.0.0.1', 'alice');
    await throttle.reserve('10.0.0.1', 'alice');
    await refused(throttle.reserve('10.0.0.1', 'alice'), /already being checked; try again in 1 s$/);
    // Another address, or another name, is not held up.
    await throttle.reserve('10.0.0.2', 'alice');
    await throttle.reserve('10.0.0.1', 'bob');
    first.failed();
    await throttle.reserve('10.0.0.1', 'alice');
  });

  it('gives a right password its reservation back and forgets the pair, and an abandoned check everything', async () => {
    const { throttle, fail } = throttleAt();
    await fail('10.0.0.1', 'alice');
    await fail('10.0.0.1', 'alice');
    await (await throttle.reserve('10.0.0.1', 'alice')).succeeded();
    // The pair starts again; the address kept its two failures (6 allowed): four more on other names spend it.
    for (let i = 0; i < 3; i++) await fail('10.0.0.1', 'alice');
    await (await throttle.reserve('10.0.0.1', 'bob')).abandoned();
    await fail('10.0.0.1', 'bob');
    await refused(throttle.reserve('10.0.0.1', 'carol'), /^too many failed logins; try again in \d+ s$/);
  });

  it('locks a name once guesses from every address reach the per-account cap, until the window passes', async () => {
    const { throttle, fail, clock } = throttleAt();
    for (let i = 0; i < 5; i++) await fail(`10.0.0.${i}`, 'alice');
    clock.now += 20_000;
    await refused(throttle.reserve('10.0.9.9', 'alice'), /^too many failed logins for this name from all addresses; its logins are locked for 40 s$/);
    await expect(throttle.reserve('10.0.9.9', 'alice')).rejects.toMatchObject({ retryAfterSeconds: 40 });
    clock.now += 40_000;
    await throttle.reserve('10.0.9.9', 'alice');
  });
});
