// Who is calling /mcp: a human, by the bearer credential of the Authorization header — their
// dashboard JWT or a personal access token. Settled before a byte of the MCP message is looked at;
// a missing or bad credential is answered 401 with an RFC 6750 challenge, an agent's api_token 403
// (MCP sessions act as a person). Both kinds are re-read from the store on every request, so a
// revoked token or a deleted user is refused at once.
import { isAccessTokenShape } from '../auth/accessTokens.js';
import { isMachineRole } from '../protocol/roles.js';
import type { UserRow } from '../store/schema.js';

const BEARER = /^bearer\s+(\S+)\s*$/i;
const REALM = 'agent-hub';

/** The person an MCP request acts as, and the access token it came with (none for a JWT). */
export interface McpCaller {
  user: UserRow;
  tokenId?: number;
}

export interface BearerDeps {
  /** A JWT or an agent's api_token → its user (auth/service.ts `authenticate`). */
  authenticate(credential: string): Promise<UserRow | undefined>;
  /** A personal access token → its human and the token's id. */
  accessToken(credential: string): Promise<{ user: UserRow; tokenId: number } | undefined>;
}

export type BearerOutcome = { ok: true; caller: McpCaller } | { ok: false; status: 401 | 403; challenge: string; message: string };

const quote = (text: string) => `"${text.replace(/["\\]/g, '')}"`;

function refusal(status: 401 | 403, error: string | undefined, message: string): BearerOutcome {
  // No error code when no credential was sent at all (RFC 6750 §3.1).
  const challenge =
    error === undefined ? `Bearer realm=${quote(REALM)}` : `Bearer realm=${quote(REALM)}, error=${quote(error)}, error_description=${quote(message)}`;
  return { ok: false, status, challenge, message };
}

export function createBearerCheck(deps: BearerDeps) {
  return async function check(header: string | string[] | undefined): Promise<BearerOutcome> {
    if (header === undefined || header === '') {
      return refusal(401, undefined, 'authorization required: send "Authorization: Bearer <JWT or personal access token>"');
    }
    const match = BEARER.exec(Array.isArray(header) ? header.join(',') : header);
    if (!match) return refusal(401, 'invalid_request', 'the Authorization header must read "Bearer <token>"');
    const credential = match[1]!;
    if (isAccessTokenShape(credential)) {
      const session = await deps.accessToken(credential);
      if (!session) return refusal(401, 'invalid_token', 'the access token is not valid (revoked, or never issued here)');
      return { ok: true, caller: { user: session.user, tokenId: session.tokenId } };
    }
    const user = await deps.authenticate(credential);
    if (!user) return refusal(401, 'invalid_token', 'the token is not valid or has expired');
    if (isMachineRole(user.role)) {
      return refusal(403, 'insufficient_scope', "MCP acts as a person: use a human's JWT or personal access token, not an agent's api_token");
    }
    return { ok: true, caller: { user } };
  };
}
export type BearerCheck = ReturnType<typeof createBearerCheck>;
