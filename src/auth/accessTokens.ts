// Personal access tokens: long-lived bearer credentials a human mints for MCP clients. Like agent
// tokens (agentTokens.ts) they are 256 random bits and the store keeps only an HMAC under a key derived
// from the hub's secret (its own purpose, so one digest never matches the other kind), plus a hint.
// Unlike agent tokens no encrypted copy is kept: the token is shown once, when it is made. The
// prefix tells the kinds apart at a glance (and to secret scanners).
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { tokenHint } from './agentTokens.js';

export const ACCESS_TOKEN_PREFIX = 'hubpat_';
/** The prefix and 43 base64url characters. */
const SHAPE = /^hubpat_[\w-]{43}$/;

export function isAccessTokenShape(credential: string): boolean {
  return credential.startsWith(ACCESS_TOKEN_PREFIX);
}

export function createAccessTokenVault(secret: string) {
  const lookupKey = Buffer.from(hkdfSync('sha256', secret, 'agent-hub', 'access-token-lookup', 32));
  return {
    generate(): string {
      return `${ACCESS_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    },
    /** The digest the store finds a token by; undefined for text that cannot be a token (no store read). */
    lookup(token: string): string | undefined {
      if (!SHAPE.test(token)) return undefined;
      return createHmac('sha256', lookupKey).update(token).digest('base64url');
    },
    hint(token: string): string {
      return tokenHint(token);
    },
  };
}
export type AccessTokenVault = ReturnType<typeof createAccessTokenVault>;
