import jwt from 'jsonwebtoken';
import { describe, it, expect } from 'vitest';
import { createTokenVault, tokenHint } from '../../../src/auth/agentTokens.js';
import { createJwtIssuer } from '../../../src/auth/jwt.js';
import { createPasswordHasher } from '../../../src/auth/passwords.js';

const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

/** Flips one bit of the byte at `index` in a `v1.<base64url>` sealed token. */
function flipByte(cipher: string, index: number): string {
  const raw = Buffer.from(cipher.replace(/^v1\./, ''), 'base64url');
  raw[index] = raw[index]! ^ 0x01;
  return `v1.${raw.toString('base64url')}`;
}

describe('createTokenVault', () => {
  const vault = createTokenVault('vault-secret-one');
  const other = createTokenVault('vault-secret-two');

  it('generates 43-character base64url tokens carrying 256 random bits', () => {
    const tokens = Array.from({ length: 1000 }, () => vault.generate());
    for (const token of tokens) {
      expect(token).toMatch(BASE64URL_43);
      expect(Buffer.from(token, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    }
    expect(new Set(tokens).size).toBe(1000);
    // 1000 random tokens use (nearly) the whole alphabet; a low-entropy generator would not.
    const alphabet = new Set(tokens.join(''));
    expect(alphabet.size).toBeGreaterThanOrEqual(60);
  });

  it('looks tokens up deterministically per secret', () => {
    const token = vault.generate();
    expect(vault.lookup(token)).toBe(vault.lookup(token));
    expect(createTokenVault('vault-secret-one').lookup(token)).toBe(vault.lookup(token));
    expect(other.lookup(token)).not.toBe(vault.lookup(token));
    expect(vault.lookup(`${token}x`)).not.toBe(vault.lookup(token));
  });

  it('never keeps the raw token in what it seals', () => {
    const token = vault.generate();
    const sealed = vault.seal(token);
    expect(sealed.lookup).toBe(vault.lookup(token));
    expect(sealed.cipher.startsWith('v1.')).toBe(true);
    for (const value of Object.values(sealed)) expect(value).not.toContain(token);
    expect(sealed.cipher).not.toContain(token.slice(0, 16));
    expect(sealed.hint).toBe(tokenHint(token));
  });

  it('seals the same token differently each time (random IV)', () => {
    const token = vault.generate();
    expect(vault.seal(token).cipher).not.toBe(vault.seal(token).cipher);
  });

  it('opens what it sealed', () => {
    const token = vault.generate();
    expect(vault.open(vault.seal(token).cipher)).toBe(token);
    const chosen = 'a-chosen-api-token-0123456789';
    expect(vault.open(vault.seal(chosen).cipher)).toBe(chosen);
  });

  it('refuses a tampered cipher text', () => {
    const sealed = vault.seal(vault.generate()).cipher;
    expect(() => vault.open(flipByte(sealed, 0))).toThrow(); // IV
    expect(() => vault.open(flipByte(sealed, 12))).toThrow(); // auth tag
    expect(() => vault.open(flipByte(sealed, 40))).toThrow(); // body
    expect(() => vault.open('v1.')).toThrow();
  });

  it('cannot be opened with another secret', () => {
    const sealed = vault.seal(vault.generate()).cipher;
    expect(() => other.open(sealed)).toThrow();
  });

  it('hints a token by its first and last four characters', () => {
    expect(tokenHint('abcdEFGHijklMNOPqrst')).toBe('abcd...qrst');
    const token = vault.generate();
    expect(vault.seal(token).hint).toBe(`${token.slice(0, 4)}...${token.slice(-4)}`);
  });
});

describe('createPasswordHasher', () => {
  const hasher = createPasswordHasher({ cost: 1024 });

  it('verifies the right password and rejects a wrong one', async () => {
    const stored = await hasher.hash('correct horse');
    await expect(hasher.verify('correct horse', stored)).resolves.toBe(true);
    await expect(hasher.verify('correct horsE', stored)).resolves.toBe(false);
    await expect(hasher.verify('', stored)).resolves.toBe(false);
  });

  it('salts: two hashes of one password differ and both verify', async () => {
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(a).not.toBe(b);
    await expect(hasher.verify('same password', a)).resolves.toBe(true);
    await expect(hasher.verify('same password', b)).resolves.toBe(true);
  });

  it('stores its parameters with the hash', async () => {
    const stored = await hasher.hash('p@ssw0rd!');
    expect(stored).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain('p@ssw0rd!');
  });

  it('verifies with the parameters stored in the hash, not its own', async () => {
    const stored = await createPasswordHasher({ cost: 2048 }).hash('portable');
    expect(stored.startsWith('scrypt$2048$8$1$')).toBe(true);
    await expect(hasher.verify('portable', stored)).resolves.toBe(true);
  });

  it('returns false for a malformed stored hash', async () => {
    const stored = await hasher.hash('pw-for-malformed');
    const [, , , , salt, key] = stored.split('$');
    for (const bad of ['', 'garbage', `bcrypt$1024$8$1$${salt}$${key}`, `${stored}$extra`, `scrypt$1024$8$1$${salt}`]) {
      await expect(hasher.verify('pw-for-malformed', bad), bad).resolves.toBe(false);
    }
  });

  it('rejects a stored hash whose key part is empty', async () => {
    const stored = await hasher.hash('the real password');
    const salt = stored.split('$')[4];
    expect(await hasher.verify('not the password', `scrypt$1024$8$1$${salt}$`)).toBe(false);
  });

  it('rejects a stored hash whose key part is not base64url', async () => {
    expect(await hasher.verify('anything', 'scrypt$1024$8$1$!!!$!!!')).toBe(false);
  });

  it('returns false, not an exception, for unusable scrypt parameters', async () => {
    const stored = await hasher.hash('pw');
    const [, , , , salt, key] = stored.split('$');
    expect(await hasher.verify('pw', `scrypt$abc$8$1$${salt}$${key}`)).toBe(false);
  });

  it('verifyAgainstNothing resolves false, even for the password of its dummy hash', async () => {
    await expect(hasher.verifyAgainstNothing('anything')).resolves.toBe(false);
    await expect(hasher.verifyAgainstNothing('not-a-real-password')).resolves.toBe(false);
  });

  it('hashes off the event loop: an immediate scheduled after hash() runs before it resolves', async () => {
    const slow = createPasswordHasher({ cost: 2 ** 15 });
    const events: string[] = [];
    // A synchronous (blocking) hash would be finished before setImmediate is even scheduled, and
    // its promise would settle in the microtask queue, ahead of any event-loop phase.
    const hashed = slow.hash('event loop').then((stored) => {
      events.push('hash resolved');
      return stored;
    });
    setImmediate(() => events.push('immediate'));
    const stored = await hashed;
    expect(events).toEqual(['immediate', 'hash resolved']);
    expect(stored.startsWith('scrypt$32768$8$1$')).toBe(true);
  });
});

describe('createJwtIssuer', () => {
  const SECRET = 'jwt-secret-for-unit-tests-0123456789';
  const issuer = createJwtIssuer(SECRET, 3600);
  const user = { id: 7, username: 'alice', role: 'ADMIN' };

  it('round-trips sub, username and role with the configured lifetime', () => {
    const token = issuer.sign(user);
    const claims = issuer.verify(token);
    expect(claims).toMatchObject({ sub: '7', username: 'alice', role: 'ADMIN' });
    const iat = (claims as unknown as { iat: number }).iat;
    expect(claims!.exp - iat).toBe(3600);
    expect(issuer.expiresInSeconds).toBe(3600);
  });

  it('signs with HS256', () => {
    const header = JSON.parse(Buffer.from(issuer.sign(user).split('.')[0]!, 'base64url').toString('utf8'));
    expect(header).toMatchObject({ alg: 'HS256' });
  });

  it('refuses a token signed with another secret', () => {
    const foreign = createJwtIssuer('another-secret-entirely-0123456789', 3600).sign(user);
    expect(issuer.verify(foreign)).toBeUndefined();
  });

  it('refuses an expired token', () => {
    const expired = jwt.sign({ username: 'alice', role: 'ADMIN', sub: '7', exp: Math.floor(Date.now() / 1000) - 60 }, SECRET, { algorithm: 'HS256' });
    expect(issuer.verify(expired)).toBeUndefined();
    // The same claims, unexpired, are accepted: it is the expiry that is refused.
    const fresh = jwt.sign({ username: 'alice', role: 'ADMIN', sub: '7', exp: Math.floor(Date.now() / 1000) + 60 }, SECRET, {
      algorithm: 'HS256',
    });
    expect(issuer.verify(fresh)).toMatchObject({ sub: '7', username: 'alice' });
  });

  it('refuses an unsigned alg:none token', () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ sub: '1', username: 'mallory', role: 'ADMIN', exp })}.`;
    expect(issuer.verify(unsigned)).toBeUndefined();
  });

  it('refuses a tampered payload', () => {
    const [header, , signature] = issuer.sign(user).split('.');
    const payload = Buffer.from(JSON.stringify({ sub: '1', username: 'alice', role: 'ADMIN', exp: Math.floor(Date.now() / 1000) + 3600 })).toString(
      'base64url',
    );
    expect(issuer.verify(`${header}.${payload}.${signature}`)).toBeUndefined();
  });

  it('refuses garbage and a validly signed token without a username', () => {
    expect(issuer.verify('not.a.jwt')).toBeUndefined();
    expect(issuer.verify('')).toBeUndefined();
    expect(issuer.verify(jwt.sign({ role: 'ADMIN' }, SECRET, { subject: '7', expiresIn: 60 }))).toBeUndefined();
  });
});
