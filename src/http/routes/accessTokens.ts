// Personal access tokens (for MCP clients): a human lists, mints and revokes their own; an admin
// also another human's (`user_id`) or everyone's (`all`).
import { z } from 'zod';
import { accessTokenParams, accessTokenView, createAccessTokenBody, listAccessTokensQuery, mintedAccessToken } from '../../protocol/accessTokens.js';
import { okBody } from '../../protocol/responses.js';
import type { AccessTokensService } from '../../services/accessTokens.js';
import { routeGroup } from '../route.js';

export interface AccessTokenDeps {
  accessTokens: Pick<AccessTokensService, 'list' | 'mint' | 'revoke'>;
}

const route = routeGroup<AccessTokenDeps>('access tokens');
const machineRefusal = 'access tokens are for human users: agents have their api_token';

export const accessTokenRoutes = [
  route({
    method: 'GET',
    path: '/api/auth/access-tokens',
    access: 'human',
    machineRefusal,
    summary: "The caller's personal access tokens, oldest first, without the tokens themselves",
    query: listAccessTokensQuery,
    responses: { 200: { description: 'the tokens', schema: z.array(accessTokenView) } },
    errors: { 403: 'user_id of someone else, or all, by a non-admin', 404: 'no such user' },
    handler: ({ query, caller }, { accessTokens }) => accessTokens.list(caller, query),
  }),
  route({
    method: 'POST',
    path: '/api/auth/access-tokens',
    access: 'human',
    machineRefusal,
    summary: 'Mint a personal access token (for an MCP client); the answer shows it this once',
    body: createAccessTokenBody,
    responses: { 201: { description: 'the token, shown this once', schema: mintedAccessToken } },
    errors: { 403: 'user_id of someone else by a non-admin', 404: 'no such user', 409: 'the user holds as many tokens as allowed' },
    handler: ({ body, caller }, { accessTokens }) => accessTokens.mint(caller, body),
  }),
  route({
    method: 'DELETE',
    path: '/api/auth/access-tokens/:id',
    access: 'human',
    machineRefusal,
    summary: 'Revoke a personal access token: it stops working at once, on every node',
    params: accessTokenParams,
    responses: { 200: { description: 'revoked', schema: okBody } },
    errors: { 404: "no such token, or another user's (unless the caller is an admin)" },
    handler: async ({ params, caller }, { accessTokens }) => {
      await accessTokens.revoke(caller, params.id);
      return { ok: true as const };
    },
  }),
];
