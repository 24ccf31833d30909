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
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Errors } from '../errors.js';

export interface LoginThrottleOptions {
  /** Failures per (address, name) within the window. */
  maxFailures: number;
  /** Failures per address, whatever the names, within the window. */
  maxFailuresPerAddress: number;
  windowSeconds: number;
  /** Cluster mode: the budgets live on this Redis, shared by every node. */
  redis?: Redis;
  /** Prefix of the budgets' keys on Redis (the cluster's name and a colon, say); default "hub:". */
  keyPrefix?: string;
  /** A Redis call slower than this is answered by the insurance limiter instead (default 500 ms). */
  redisTimeoutMs?: number;
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
      // Not queued in ioredis's offline queue while Redis is away: answered by the insurance at once.
      rejectIfRedisNotReady: true,
      insuranceLimiter: insurance,
    });
    // A call already sent when Redis stalls or dies gives up after the timeout and goes to the
    // same insurance limiter.
    const timed = new RLWrapperTimeouts({ limiter: shared, timeoutMs: options.redisTimeoutMs ?? 500, blockDuration: options.windowSeconds });
    return { limiter: timed, insurance };
  };
  const budgets = [
    { ...limiter(options.maxFailures, 'name'), max: options.maxFailures, keyOf: (address: string, username: string) => `${address}|${username}` },
    { ...limiter(options.maxFailuresPerAddress, 'address'), max: options.maxFailuresPerAddress, keyOf: (address: string) => address },
  ] as const;
  const [perName] = budgets;
  const refusal = (msBeforeNext: number) => {
    const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return Errors.rateLimited(`too many failed logins; try again in ${seconds} s`, seconds);
  };

  return {
    /** Throws 429 while this address may not try this name, or may not try at all. */
    async check(address: string, username: string): Promise<void> {
      // Both budgets at once: on Redis each is a round trip.
      const states = await Promise.all(budgets.map((budget) => budget.limiter.get(budget.keyOf(address, username))));
      let waitMs = 0;
      states.forEach((state, i) => {
        if (state && state.consumedPoints >= budgets[i]!.max) waitMs = Math.max(waitMs, state.msBeforeNext);
      });
      if (waitMs > 0) throw refusal(waitMs);
    },
    async failed(address: string, username: string): Promise<void> {
      await Promise.all(
        budgets.map((budget) =>
          budget.limiter.consume(budget.keyOf(address, username)).catch((err: unknown) => {
            if (err instanceof RateLimiterRes) return; // already at the limit; `check` refuses the next try
            throw err;
          }),
        ),
      );
    },
    /**
     * Forgets the pair's failures only: a success on one name (the sprayer's own account, say)
     * must not refill the address's budget for guessing the others.
     */
    async succeeded(address: string, username: string): Promise<void> {
      const key = perName.keyOf(address, username);
      // The Redis store's delete skips its readiness check (it would wait out the timeout on every
      // login while Redis is away): forget where the failures were counted meanwhile.
      if (perName.insurance && redis?.status !== 'ready') await perName.insurance.delete(key);
      else await perName.limiter.delete(key);
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
