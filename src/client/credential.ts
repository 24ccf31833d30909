// What a client can tell from its own credential without asking the hub. A human's JWT names the
// user (its claims are readable; only the hub can verify them); anything else is an agent's api_token.
// The hub tells the two apart by the same shape.
const JWT_SHAPE = /^[\w-]+\.([\w-]+)\.[\w-]+$/;

export interface CredentialInfo {
  kind: 'human' | 'machine';
  /** The user's id and name, when the credential carries them (JWTs). */
  userId?: number;
  username?: string;
}

function decodeBase64Url(text: string): string {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(base64);
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

export function describeCredential(token: string): CredentialInfo {
  const body = JWT_SHAPE.exec(token)?.[1];
  if (body === undefined) return { kind: 'machine' };
  try {
    const claims = JSON.parse(decodeBase64Url(body)) as { sub?: unknown; username?: unknown };
    const userId = Number(claims.sub);
    return {
      kind: 'human',
      userId: Number.isSafeInteger(userId) && userId > 0 ? userId : undefined,
      username: typeof claims.username === 'string' ? claims.username : undefined,
    };
  } catch {
    // Shaped like a JWT but unreadable: the hub will refuse it, and says so when the client connects.
    return { kind: 'human' };
  }
}
