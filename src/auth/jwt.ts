// Human sessions: HS256 JWTs carrying the user id and name; the role is re-read from the store on
// every request, so demoting or deleting a user takes effect at once. A verified token's claims are
// kept until it expires: its signature cannot change, and expiry is checked again on every use.
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createCredentialCache } from './credentialCache.js';

export interface SessionClaims {
  sub: string;
  username: string;
  role: string;
  exp: number;
}

/** Verified tokens kept; a hub with more live sessions than this verifies the rest each time. */
const VERIFIED_CAPACITY = 10_000;

/** jsonwebtoken's own rule: expired once the current second reaches `exp`. */
const expired = (claims: SessionClaims) => Math.floor(Date.now() / 1000) >= claims.exp;

export function createJwtIssuer(secret: string, expiresInSeconds: number) {
  const verified = createCredentialCache<SessionClaims>(VERIFIED_CAPACITY);
  // A KeyObject made once: given a string, jsonwebtoken first tries to parse it as a public key on
  // every call, which was 40% of the CPU of an authenticated request.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return {
    expiresInSeconds,
    sign(user: { id: number; username: string; role: string }): string {
      return jwt.sign({ username: user.username, role: user.role }, key, {
        algorithm: 'HS256',
        subject: String(user.id),
        expiresIn: expiresInSeconds,
      });
    },
    /** Claims of a valid, unexpired token; undefined for anything else. */
    verify(token: string): SessionClaims | undefined {
      const known = verified.get(token);
      if (known) {
        if (!expired(known)) return known;
        verified.delete(token);
        return undefined;
      }
      try {
        const claims = jwt.verify(token, key, { algorithms: ['HS256'] });
        if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims['username'] !== 'string') return undefined;
        const session = claims as SessionClaims;
        // Only tokens whose validity depends on the clock alone through `exp` (this hub signs no `nbf`).
        if (typeof session.exp === 'number' && claims.nbf === undefined) verified.set(token, session);
        return session;
      } catch {
        return undefined; // expired, malformed or signed with another key: all the same to a caller
      }
    },
  };
}
export type JwtIssuer = ReturnType<typeof createJwtIssuer>;
