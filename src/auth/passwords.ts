// Password hashing with scrypt from node:crypto: memory-hard, and the async form runs on libuv's
// thread pool, so a login never blocks the event loop. Parameters are stored with each hash.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => {
    scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

export interface PasswordHasherOptions {
  /** CPU/memory cost (power of two). 2^15 with r=8 uses 32 MiB and ~60 ms per hash here. */
  cost?: number;
}

const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

export function createPasswordHasher(options: PasswordHasherOptions = {}) {
  const cost = options.cost ?? 2 ** 15;
  const maxmem = 256 * cost * BLOCK_SIZE;
  let dummyHash: Promise<string> | undefined;

  async function hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scrypt(password, salt, KEY_LENGTH, { N: cost, r: BLOCK_SIZE, p: PARALLELISM, maxmem });
    return `scrypt$${cost}$${BLOCK_SIZE}$${PARALLELISM}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  async function verify(password: string, stored: string): Promise<boolean> {
    const parts = stored.split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
    const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
    const salt = Buffer.from(parts[4]!, 'base64url');
    const expected = Buffer.from(parts[5]!, 'base64url');
    // A damaged row must never verify (an empty key would compare equal to an empty key).
    if (expected.length < 16 || salt.length < 8 || !Number.isSafeInteger(N) || !Number.isSafeInteger(r) || !Number.isSafeInteger(p)) return false;
    try {
      const key = await scrypt(password, salt, expected.length, { N, r, p, maxmem: 256 * N * r });
      return timingSafeEqual(key, expected);
    } catch {
      return false; // parameters scrypt refuses: the row is unusable, the answer is still "no"
    }
  }

  return {
    hash,
    verify,
    /** Spends the same time as a real check, so a missing user is not told apart by timing. */
    async verifyAgainstNothing(password: string): Promise<false> {
      dummyHash ??= hash('not-a-real-password');
      await verify(password, await dummyHash);
      return false;
    },
  };
}
export type PasswordHasher = ReturnType<typeof createPasswordHasher>;
