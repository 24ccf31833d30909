// Slows password guessing with three budgets of failed logins per window, kept per hub process (in
// memory), or on Redis when several nodes serve one hub, so that they share them. Per name and
// address: after `maxFailures` that pair is refused (429) until the window passes. Per address:
// after `maxFailuresPerAddress` failures on any names that address is refused, which stops one
// address trying a common password on many names (spraying). Per name, from every address: after
// `maxFailuresPerAccount` the name's logins are locked for the window, so that rotating addresses
// (or a forged X-Forwarded-For behind a hop-count TRUST_PROXY) buys no more guesses.
//
// A login reserves one failure on each budget before its password is hashed, in one atomic step
// (one Lua script on Redis), and gives it back when the password was right: guesses sent in
// parallel cannot all pass a check made before any of them failed. A refusal is decided before
// hashing, so it never says whether the password was right. Logins in progress per name and
// address are capped on each node too, so one caller cannot queue many hashes at once.
//
// On Redis, the budgets have an in-memory insurance: while Redis is unreachable or slow, logins keep
// working, throttled per node, rather than failing or going unthrottled.
import type { Redis } from 'ioredis';
import { Errors } from '../errors.js';

export interface LoginThrottleOptions {
  /** Failures per (address, name) within the window. */
  maxFailures: number;
  /** Failures per address, whatever the names, within the window. */
  maxFailuresPerAddress: number;
  /** Failures per name, from any address, within the window; then the name's logins are locked. */
  maxFailuresPerAccount: number;
  windowSeconds: number;
  /** Logins of one name from one address being checked at once on this node (default 4). */
  maxInProgress?: number;
  /** Cluster mode: the budgets live on this Redis, shared by every node. */
  redis?: Redis;
  /** Prefix of the budgets' keys on Redis (the cluster's name and a colon, say); default "hub:". */
  keyPrefix?: string;
  /** A Redis call slower than this is answered by the insurance counters instead (default 500 ms). */
  redisTimeoutMs?: number;
  /** Milliseconds since the epoch; tests pass their own. */
  now?: () => number;
}

/** One login's reservation: settle it exactly once. */
export interface LoginAttempt {
  /** The password was wrong: the reserved failure stays counted. */
  failed(): void;
  /** The password was right: the pair's failures are forgotten, the others get their reservation back. */
  succeeded(): Promise<void>;
  /** The check could not be made (the store failed): every reservation is given back. */
  abandoned(): Promise<void>;
}

/**
 * A libuv thread pool hashes four passwords at once by default: a fifth login of the same name from
 * the same address would only wait in its queue, holding a connection and 32 MiB when it runs.
 */
const DEFAULT_MAX_IN_PROGRESS = 4;

type Budget = 'name' | 'address' | 'account';
interface Count {
  key: string;
  max: number;
}
type Reservation = { ok: true } | { ok: false; budget: number; msBeforeNext: number };

/** Fixed-window counters: each key counts from its first failure until the window has passed. */
interface Counters {
  /** One more on every key, unless one is at its limit: then nothing changes and the longest wait is named. */
  reserve(counts: readonly Count[], windowMs: number): Promise<Reservation>;
  /** One less on each key (a reservation given back). */
  release(keys: readonly string[]): Promise<void>;
  forget(key: string): Promise<void>;
}

/** Past this many keys created, expired ones are swept (keys otherwise go only when read again). */
const SWEEP_EVERY = 1000;

function memoryCounters(now: () => number): Counters {
  const counts = new Map<string, { n: number; resetAt: number }>();
  let created = 0;
  const live = (key: string) => {
    const entry = counts.get(key);
    if (entry && entry.resetAt <= now()) {
      counts.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = () => {
    const t = now();
    for (const [key, entry] of counts) if (entry.resetAt <= t) counts.delete(key);
  };
  return {
    // Synchronous inside: nothing else runs between the check and the increments.
    async reserve(wanted, windowMs) {
      let refused: Reservation = { ok: true };
      wanted.forEach(({ key, max }, budget) => {
        const entry = live(key);
        const wait = entry && entry.n >= max ? entry.resetAt - now() : 0;
        if (wait > 0 && (refused.ok || wait > refused.msBeforeNext)) refused = { ok: false, budget, msBeforeNext: wait };
      });
      if (!refused.ok) return refused;
      for (const { key } of wanted) {
        const entry = live(key);
        if (entry) entry.n += 1;
        else {
          counts.set(key, { n: 1, resetAt: now() + windowMs });
          if (++created % SWEEP_EVERY === 0) sweep();
        }
      }
      return refused;
    },
    async release(keys) {
      for (const key of keys) {
        const entry = live(key);
        if (entry && --entry.n <= 0) counts.delete(key);
      }
    },
    async forget(key) {
      counts.delete(key);
    },
  };
}

// KEYS: the budgets' keys. ARGV[1]: the window in ms; ARGV[1 + i]: the limit of KEYS[i].
// Returns {0, 0} when one was added to every key, else {i, ms} for the full key that frees last.
const RESERVE = `
local refused, wait = 0, 0
for i, key in ipairs(KEYS) do
  local n = tonumber(redis.call('get', key) or '0')
  if n >= tonumber(ARGV[i + 1]) then
    local ttl = redis.call('pttl', key)
    if ttl < 0 then
      redis.call('pexpire', key, ARGV[1])
      ttl = tonumber(ARGV[1])
    end
    if ttl > wait then refused, wait = i, ttl end
  end
end
if refused > 0 then return {refused, wait} end
for _, key in ipairs(KEYS) do
  if redis.call('incr', key) == 1 then redis.call('pexpire', key, ARGV[1]) end
end
return {0, 0}`;

// One less on each key that exists (never creating one without an expiry).
const RELEASE = `
for _, key in ipairs(KEYS) do
  if redis.call('exists', key) == 1 and redis.call('decr', key) <= 0 then redis.call('del', key) end
end
return 0`;

function redisCounters(redis: Redis, insurance: Counters, timeoutMs: number): Counters {
  // Not queued in ioredis's offline queue while Redis is away, and not waited on past the timeout:
  // the node's own counters answer instead (a call that lands late only counts on the safe side).
  const shared = async <T>(call: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => {
    if (redis.status !== 'ready') return fallback();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)));
    try {
      const answer = await Promise.race([call(), late]);
      return answer === 'late' ? fallback() : answer;
    } catch {
      return fallback(); // Redis refused or dropped the call: counted on this node meanwhile
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    reserve: (counts, windowMs) =>
      shared(
        async () => {
          const [budget, ms] = (await redis.eval(RESERVE, counts.length, ...counts.map((c) => c.key), windowMs, ...counts.map((c) => c.max))) as [
            number,
            number,
          ];
          return budget === 0 ? { ok: true } : { ok: false, budget: budget - 1, msBeforeNext: ms };
        },
        () => insurance.reserve(counts, windowMs),
      ),
    release: (keys) =>
      shared(
        async () => void (await redis.eval(RELEASE, keys.length, ...keys)),
        () => insurance.release(keys),
      ),
    forget: (key) =>
      shared(
        async () => void (await redis.del(key)),
        () => insurance.forget(key),
      ),
  };
}

export function createLoginThrottle(options: LoginThrottleOptions) {
  const now = options.now ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const maxInProgress = options.maxInProgress ?? DEFAULT_MAX_IN_PROGRESS;
  const insurance = memoryCounters(now);
  const counters = options.redis ? redisCounters(options.redis, insurance, options.redisTimeoutMs ?? 500) : insurance;
  const prefix = options.redis ? `${options.keyPrefix ?? 'hub:'}login-failures:` : '';
  const keysOf = (address: string, username: string): Record<Budget, string> => ({
    name: `${prefix}name:${address}|${username}`,
    address: `${prefix}address:${address}`,
    account: `${prefix}account:${username}`,
  });
  const inProgress = new Map<string, number>();

  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const refusal = (budget: Budget, ms: number) =>
    budget === 'account'
      ? Errors.rateLimited(`too many failed logins for this name from all addresses; its logins are locked for ${seconds(ms)} s`, seconds(ms))
      : Errors.rateLimited(`too many failed logins; try again in ${seconds(ms)} s`, seconds(ms));

  return {
    /**
     * Reserves one failure on every budget, or throws 429 while this address may not try this
     * name, may not try at all, or the name is locked. Settle the attempt it returns.
     */
    async reserve(address: string, username: string): Promise<LoginAttempt> {
      const keys = keysOf(address, username);
      const running = inProgress.get(keys.name) ?? 0;
      if (running >= maxInProgress) throw Errors.rateLimited('a login of this name from this address is already being checked; try again in 1 s', 1);
      inProgress.set(keys.name, running + 1);
      let settled = false;
      const done = () => {
        if (settled) throw new Error('a login attempt was settled twice');
        settled = true;
        const left = (inProgress.get(keys.name) ?? 1) - 1;
        if (left > 0) inProgress.set(keys.name, left);
        else inProgress.delete(keys.name);
      };
      const budgets: readonly Budget[] = ['name', 'address', 'account'];
      const max: Record<Budget, number> = { name: options.maxFailures, address: options.maxFailuresPerAddress, account: options.maxFailuresPerAccount };
      let reservation: Reservation;
      try {
        reservation = await counters.reserve(
          budgets.map((b) => ({ key: keys[b], max: max[b] })),
          windowMs,
        );
      } catch (err) {
        done();
        throw err;
      }
      if (!reservation.ok) {
        done();
        throw refusal(budgets[reservation.budget]!, reservation.msBeforeNext);
      }
      return {
        failed: done,
        async succeeded() {
          done();
          // A success on one name (the sprayer's own account, say) must not refill the address's
          // budget for guessing the others: only this login's own reservation comes back.
          await Promise.all([counters.forget(keys.name), counters.release([keys.address, keys.account])]);
        },
        async abandoned() {
          done();
          await counters.release([keys.name, keys.address, keys.account]);
        },
      };
    },
  };
}
export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
