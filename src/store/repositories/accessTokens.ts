// Personal access tokens of humans: made, listed (never with a secret: none is stored), found by the
// HMAC of the token, and deleted. Finding one joins its user, so a deleted user's tokens find nobody.
import type { Kysely } from 'kysely';
import type { AccessTokenRow, Database, UserRow } from '../schema.js';

export interface NewAccessToken {
  user_id: number;
  name: string;
  token_lookup: string;
  token_hint: string;
  created_at: string;
}

export function createAccessTokensRepo(db: Kysely<Database>) {
  return {
    async insert(token: NewAccessToken): Promise<AccessTokenRow> {
      return db.insertInto('access_tokens').values(token).returningAll().executeTakeFirstOrThrow();
    },
    /** Oldest first; every user's when `userId` is undefined. */
    async list(userId: number | undefined): Promise<AccessTokenRow[]> {
      let query = db.selectFrom('access_tokens').selectAll();
      if (userId !== undefined) query = query.where('user_id', '=', userId);
      return query.orderBy('id').execute();
    },
    async findById(id: number): Promise<AccessTokenRow | undefined> {
      return db.selectFrom('access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    },
    async countOf(userId: number): Promise<number> {
      const row = await db
        .selectFrom('access_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    /** The token with this lookup digest and the user who holds it. */
    async findByLookup(lookup: string): Promise<{ token: AccessTokenRow; user: UserRow } | undefined> {
      const token = await db.selectFrom('access_tokens').selectAll().where('token_lookup', '=', lookup).executeTakeFirst();
      if (!token) return undefined;
      const user = await db.selectFrom('users').selectAll().where('id', '=', token.user_id).executeTakeFirst();
      return user && { token, user };
    },
    /** True when a row was deleted. */
    async delete(id: number): Promise<boolean> {
      const result = await db.deleteFrom('access_tokens').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
export type AccessTokensRepo = ReturnType<typeof createAccessTokensRepo>;
