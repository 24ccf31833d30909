// Zod schemas of the personal access token routes (/api/auth/access-tokens): what is sent to mint one,
// what a listing shows (never the token: the hub keeps none), and the answer to a mint (the token, once).
import * as z from 'zod';
import { id } from './http.js';

export const MAX_ACCESS_TOKEN_NAME = 100;
/** Tokens one user may hold at once: enough for every client, few enough to review. */
export const MAX_ACCESS_TOKENS_PER_USER = 50;

export const createAccessTokenBody = z.object({
  name: z.string().trim().min(1).max(MAX_ACCESS_TOKEN_NAME).meta({ description: 'what the token is for, e.g. "laptop: Claude Code"' }),
  user_id: id.optional().meta({ description: 'admins only: mint it for this human (yourself when absent)' }),
});
export type CreateAccessTokenInput = z.infer<typeof createAccessTokenBody>;

const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);
export const listAccessTokensQuery = z.object({
  user_id: z.preprocess(emptyAsAbsent, z.coerce.number().int().min(1).optional()).meta({ description: "admins only: this user's tokens" }),
  all: z
    .preprocess(emptyAsAbsent, z.enum(['true', 'false', '1', '0']).optional())
    .transform((v) => v === 'true' || v === '1')
    .meta({ description: "admins only: every user's tokens" }),
});
export type ListAccessTokensQuery = z.infer<typeof listAccessTokensQuery>;

export const accessTokenParams = z.object({ id: z.coerce.number().int().min(1) });

export const accessTokenView = z
  .object({
    id: z.number().int().min(1),
    user_id: z.number().int().min(1),
    username: z.string(),
    name: z.string(),
    token_hint: z.string().meta({ description: 'first 4 and last 4 characters' }),
    created_at: z.string().meta({ description: 'ISO 8601 UTC' }),
  })
  .meta({ id: 'AccessToken' });
export type AccessTokenView = z.infer<typeof accessTokenView>;

export const mintedAccessToken = accessTokenView
  .extend({ token: z.string().meta({ description: 'the bearer token, shown this once: the hub keeps only a digest' }) })
  .meta({ id: 'MintedAccessToken' });
