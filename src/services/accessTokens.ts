// Personal access tokens: a human mints one for an MCP client (an admin may mint one for any human),
// lists them (never the token itself) and revokes them; the MCP edge authenticates with them. A
// revocation ends at once what the token has open: every request authenticates against the store,
// and requests still running with the token (a wait for a reply, a subscription stream) are told,
// here and, over the bus, on every other node.
import { z } from 'zod';
import { Errors } from '../errors.js';
import { MAX_ACCESS_TOKENS_PER_USER, type AccessTokenView, type CreateAccessTokenInput, type ListAccessTokensQuery } from '../protocol/accessTokens.js';
import { isMachineRole } from '../protocol/roles.js';
import type { AccessTokensRepo } from '../store/repositories/accessTokens.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { AccessTokenRow, UserRow } from '../store/schema.js';
import type { AccessTokenVault } from '../auth/accessTokens.js';
import type { Clock } from '../clock.js';
import { defineBusMessage, type Bus } from '../delivery/bus.js';

/** "This access token was revoked": the nodes end what it has open. */
export const accessTokenRevokedMessage = defineBusMessage('access-token-revoked', z.object({ tokenId: z.number().int() }));

export interface AccessTokenSession {
  user: UserRow;
  tokenId: number;
}

export interface AccessTokensDeps {
  tokens: AccessTokensRepo;
  users: Pick<UsersRepo, 'findById'>;
  vault: AccessTokenVault;
  clock: Clock;
  bus: Bus;
}

const view = (row: AccessTokenRow, username: string): AccessTokenView => ({
  id: row.id,
  user_id: row.user_id,
  username,
  name: row.name,
  token_hint: row.token_hint,
  created_at: row.created_at,
});

export function createAccessTokensService(deps: AccessTokensDeps) {
  const { tokens, users, vault, clock, bus } = deps;
  const listeners = new Set<(tokenId: number) => void>();
  const revokedHere = (tokenId: number) => {
    for (const listener of [...listeners]) listener(tokenId);
  };
  bus.subscribe(accessTokenRevokedMessage, ({ tokenId }) => revokedHere(tokenId));

  /** The human whose tokens `caller` asks about: themselves, or (admins only) another human. */
  async function ownerFor(caller: UserRow, userId: number | undefined): Promise<UserRow> {
    if (userId === undefined || userId === caller.id) return caller;
    if (caller.role !== 'ADMIN') throw Errors.forbidden("only admins manage another user's access tokens");
    const owner = await users.findById(userId);
    if (!owner) throw Errors.notFound('user');
    if (isMachineRole(owner.role)) throw Errors.badRequest('access tokens are for human users: agents have their api_token');
    return owner;
  }

  async function usernamesOf(rows: readonly AccessTokenRow[]): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    for (const id of new Set(rows.map((r) => r.user_id))) {
      const user = await users.findById(id);
      if (user) names.set(id, user.username);
    }
    return names;
  }

  return {
    /** The token is in the answer this once. */
    async mint(caller: UserRow, input: CreateAccessTokenInput): Promise<AccessTokenView & { token: string }> {
      const owner = await ownerFor(caller, input.user_id);
      if ((await tokens.countOf(owner.id)) >= MAX_ACCESS_TOKENS_PER_USER) {
        throw Errors.conflict(`a user may hold at most ${MAX_ACCESS_TOKENS_PER_USER} access tokens: revoke one first`);
      }
      const token = vault.generate();
      const row = await tokens.insert({
        user_id: owner.id,
        name: input.name,
        token_lookup: vault.lookup(token)!,
        token_hint: vault.hint(token),
        created_at: clock(),
      });
      return { ...view(row, owner.username), token };
    },

    async list(caller: UserRow, query: ListAccessTokensQuery): Promise<AccessTokenView[]> {
      if (query.all) {
        if (caller.role !== 'ADMIN') throw Errors.forbidden("only admins list every user's access tokens");
        const rows = await tokens.list(undefined);
        const names = await usernamesOf(rows);
        return rows.map((row) => view(row, names.get(row.user_id) ?? ''));
      }
      const owner = await ownerFor(caller, query.user_id);
      return (await tokens.list(owner.id)).map((row) => view(row, owner.username));
    },

    /** Owner or admin; anyone else is told it does not exist (token ids of others stay private). */
    async revoke(caller: UserRow, id: number): Promise<void> {
      const row = await tokens.findById(id);
      if (!row || (row.user_id !== caller.id && caller.role !== 'ADMIN')) throw Errors.notFound('access token');
      await tokens.delete(id);
      revokedHere(id);
      bus.publish(accessTokenRevokedMessage, { tokenId: id });
    },

    /** The human holding this token, read from the store on every call; undefined when none does. */
    async authenticate(credential: string): Promise<AccessTokenSession | undefined> {
      const lookup = vault.lookup(credential);
      if (lookup === undefined) return undefined;
      const found = await tokens.findByLookup(lookup);
      if (!found || isMachineRole(found.user.role)) return undefined;
      return { user: found.user, tokenId: found.token.id };
    },

    /** Runs `listener` with the id of every token revoked from now on, on any node; returns the unsubscribe. */
    onRevoked(listener: (tokenId: number) => void): () => void {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
export type AccessTokensService = ReturnType<typeof createAccessTokensService>;
