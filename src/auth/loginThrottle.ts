// Slows password guessing with two budgets of failed logins per window, kept per hub process (in
// memory), or on Redis when several nodes serve one hub, so that they share one budget. Per name
// and address: after `maxFailures` that pair is refused (429) until the window passes; nobody can
// lock a user out from elsewhere. Per address: after `maxFailuresPerAddress` failures on any names
// that address is refused, which stops one address trying a common password on many names
// (spraying). A user whose name is being guessed still logs in from their own address.
//
// On Redis, each budget has an in-memory insurance limiter: while Redis is unreachable logins keep
// working, throttled per node, rather than failing or going unthrottled.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Errors } from '../errors.js';

export interface LoginThrottleOptions {
  /** Failures per (address, name) within the window. */
  maxFailures: number;
  /** Failures per address, whatever the names, within the window. */
  maxFailuresPerAddress: number;
  windowSeconds: number;
  /** Cluster mode: the budgets live on this Redis, shared by every node. */
  redis?: Redis;
  /** Prefix of the budgets' keys on Redis (the cluster's name, say "hub:"); default "hub:". */
  keyPrefix?: string;
}

export function createLoginThrottle(options: LoginThrottleOptions) {
  const { redis } = options;
  const limiter = (points: number, budget: string): { limiter: RateLimiterAbstract; insurance?: RateLimiterMemory } => {
    const shape = { points, duration: options.windowSeconds, blockDuration: options.windowSeconds };
    if (!redis) return { limiter: new RateLimiterMemory(shape) };
    const insurance = new RateLimiterMemory(shape);
    const shared = new RateLimiterRedis({
      ...shape,
      storeClient: redis,
      keyPrefix: `${options.keyPrefix ?? 'hub:'}login-failures:${budget}`,
      // Without this, commands would wait in ioredis's offline queue while Redis is down.
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
    return { limiter: shared, insurance };
  };
  const budgets = [
    { ...limiter(options.maxFailures, 'name'), max: options.maxFailures, keyOf: (address: string, username: string) => `${address}|${username}` },
    { ...limiter(options.maxFailuresPerAddress, 'address'), max: options.maxFailuresPerAddress, keyOf: (address: string) => address },
  ] as const;
  // The Redis store's delete does not fall back to the insurance limiter while Redis is not ready
  // (it would wait in the offline queue), so forgetting goes where the failures were counted.
  const forget = async (budget: (typeof budgets)[number], key: string) => {
    if (budget.insurance && redis?.status !== 'ready') await budget.insurance.delete(key);
    else await budget.limiter.delete(key);
  };
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
      await forget(perName, perName.keyOf(address, username));
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
