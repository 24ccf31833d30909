// Human sessions: HS256 JWTs carrying the user id and name; the role is re-read from the store on
// every request, so demoting or deleting a user takes effect at once.
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';

export interface SessionClaims {
  sub: string;
  username: string;
  role: string;
  exp: number;
}

export function createJwtIssuer(secret: string, expiresInSeconds: number) {
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
      try {
        const claims = jwt.verify(token, key, { algorithms: ['HS256'] });
        if (typeof claims !== 'object' || typeof claims.sub !== 'string' || typeof claims['username'] !== 'string') return undefined;
        return claims as SessionClaims;
      } catch {
        return undefined; // expired, malformed or signed with another key: all the same to a caller
      }
    },
  };
}
export type JwtIssuer = ReturnType<typeof createJwtIssuer>;
