// Slows password guessing with two budgets of failed logins per window, both per hub process (in
// memory). Per name and address: after `maxFailures` that pair is refused (429) until the window
// passes; nobody can lock a user out from elsewhere. Per address: after `maxFailuresPerAddress`
// failures on any names that address is refused, which stops one address trying a common password
// on many names (spraying). A user whose name is being guessed still logs in from their own address.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Errors } from '../errors.js';

export interface LoginThrottleOptions {
  /** Failures per (address, name) within the window. */
  maxFailures: number;
  /** Failures per address, whatever the names, within the window. */
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

export function createLoginThrottle(options: LoginThrottleOptions) {
  const limiter = (points: number) => new RateLimiterMemory({ points, duration: options.windowSeconds, blockDuration: options.windowSeconds });
  const budgets = [
    { limiter: limiter(options.maxFailures), max: options.maxFailures, keyOf: (address: string, username: string) => `${address}|${username}` },
    { limiter: limiter(options.maxFailuresPerAddress), max: options.maxFailuresPerAddress, keyOf: (address: string) => address },
  ] as const;
  const [perName] = budgets;
  const refusal = (msBeforeNext: number) => {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return Errors.rateLimited(`too many failed logins; try again in ${seconds} s`, seconds);
  };

  return {
    /** Throws 429 while this address may not try this name, or may not try at all. */
    async check(address: string, username: string): Promise<void> {
      let waitMs = 0;
      for (const budget of budgets) {
        const state = await budget.limiter.get(budget.keyOf(address, username));
        if (state && state.consumedPoints >= budget.max) waitMs = Math.max(waitMs, state.msBeforeNext);
      }
      if (waitMs > 0) throw refusal(waitMs);
    },
    async failed(address: string, username: string): Promise<void> {
      for (const budget of budgets) {
        try {
          await budget.limiter.consume(budget.keyOf(address, username));
        } catch (err) {
          if (err instanceof RateLimiterRes) continue; // already at the limit; `check` refuses the next try
          throw err;
        }
      }
    },
    /**
     * Forgets the pair's failures only: a success on one name (the sprayer's own account, say)
     * must not refill the address's budget for guessing the others.
     */
    async succeeded(address: string, username: string): Promise<void> {
      await perName.limiter.delete(perName.keyOf(address, username));
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
