// Slows password guessing: after `maxFailures` failed logins for one name from one address within
// the window, that pair is refused (429) until the window passes. Keyed by address and name
// together, so nobody can lock a user out from elsewhere. In memory: per hub process.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Errors } from '../errors.js';

export interface LoginThrottleOptions {
  maxFailures: number;
  windowSeconds: number;
}

export function createLoginThrottle(options: LoginThrottleOptions) {
  const failures = new RateLimiterMemory({
    points: options.maxFailures,
    duration: options.windowSeconds,
    blockDuration: options.windowSeconds,
  });
  const keyOf = (address: string, username: string) => `${address}|${username}`;
  const refusal = (msBeforeNext: number) => {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return Errors.rateLimited(`too many failed logins; try again in ${seconds} s`, seconds);
  };

  return {
    /** Throws 429 while this address may not try this name. */
    async check(address: string, username: string): Promise<void> {
      const state = await failures.get(keyOf(address, username));
      if (state && state.consumedPoints >= options.maxFailures) {
        throw refusal(state.msBeforeNext);
      }
    },
    async failed(address: string, username: string): Promise<void> {
      try {
        await failures.consume(keyOf(address, username));
      } catch (err) {
        if (err instanceof RateLimiterRes) return; // already at the limit; `check` refuses the next try
        throw err;
      }
    },
    async succeeded(address: string, username: string): Promise<void> {
      await failures.delete(keyOf(address, username));
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
