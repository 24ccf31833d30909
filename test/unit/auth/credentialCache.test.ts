// The credential cache: bounded, least recently used out first; and JWTs verified once, expiring on time.
import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createCredentialCache } from '../../../src/auth/credentialCache.js';
import { createJwtIssuer } from '../../../src/auth/jwt.js';

describe('credential cache', () => {
  it('keeps at most its capacity, dropping the least recently used', () => {
    const cache = createCredentialCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // now b is the least recent
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    cache.delete('a');
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('JWT verification', () => {
  afterEach(() => vi.useRealTimers());
  const secret = 'a-secret-of-enough-length-for-hs256-0123456789';

  it('keeps accepting a cached token until its exp, then refuses it', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const issuer = createJwtIssuer(secret, 60);
    const token = issuer.sign({ id: 7, username: 'ann', role: 'MEMBER' });
    expect(issuer.verify(token)).toMatchObject({ sub: '7', username: 'ann' });
    vi.advanceTimersByTime(59_000);
    expect(issuer.verify(token)).toMatchObject({ sub: '7' });
    vi.advanceTimersByTime(1_000);
    expect(issuer.verify(token)).toBeUndefined();
    expect(issuer.verify(token)).toBeUndefined();
  });

  it('does not verify a cached token against another key, nor a forged one', () => {
    const issuer = createJwtIssuer(secret, 60);
    const other = createJwtIssuer(`${secret}-other`, 60);
    const token = issuer.sign({ id: 7, username: 'ann', role: 'MEMBER' });
    expect(issuer.verify(token)).toBeDefined();
    expect(other.verify(token)).toBeUndefined();
    const forged = jwt.sign({ username: 'ann', role: 'ADMIN' }, 'guess', { algorithm: 'HS256', subject: '7', expiresIn: 60 });
    expect(issuer.verify(forged)).toBeUndefined();
  });

  it('does not cache a token that is not valid yet', () => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    const issuer = createJwtIssuer(secret, 60);
    const later = jwt.sign({ username: 'ann', role: 'MEMBER' }, secret, { algorithm: 'HS256', subject: '7', expiresIn: 60, notBefore: 30 });
    expect(issuer.verify(later)).toBeUndefined();
    vi.advanceTimersByTime(30_000);
    expect(issuer.verify(later)).toMatchObject({ sub: '7' });
  });
});
