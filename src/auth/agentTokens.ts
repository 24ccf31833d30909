// Agent api_tokens: 256-bit random strings. The store keeps an HMAC (to find the agent by token)
// and an AES-256-GCM copy (only the dev endpoint decrypts it), never the token itself, so a copy
// of the database alone hands out no working token. Both keys are derived from one secret.
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { StoredMachineToken } from '../store/repositories/credentials.js';
import { createSecretBox } from './secrets.js';

export const MIN_TOKEN_LENGTH = 16;

export function tokenHint(token: string): string {
  return `${token.slice(0, 4)}...${token.slice(-4)}`;
}

export function createTokenVault(secret: string) {
  const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, 'agent-hub', info, 32));
  const lookupKey = derive('agent-token-lookup');
  const box = createSecretBox(secret, 'agent-token-encryption');

  function lookup(token: string): string {
    return createHmac('sha256', lookupKey).update(token).digest('base64url');
  }

  return {
    /** 32 random bytes, base64url: 256 bits of entropy in 43 URL-safe characters. */
    generate(): string {
      return randomBytes(32).toString('base64url');
    },
    lookup,
    seal(token: string): StoredMachineToken {
      return { lookup: lookup(token), cipher: box.seal(token), hint: tokenHint(token) };
    },
    open(cipherText: string): string {
      return box.open(cipherText);
    },
  };
}
export type TokenVault = ReturnType<typeof createTokenVault>;
