// Credentials, kept apart from users: password hashes of humans, token digests of machines.
import type { Kysely } from 'kysely';
import type { Database, MachineCredentialRow } from '../schema.js';

export interface StoredMachineToken {
  lookup: string;
  cipher: string;
  hint: string;
}

export function createCredentialsRepo(db: Kysely<Database>) {
  return {
    async setPassword(userId: number, passwordHash: string, now: string, trx: Kysely<Database> = db): Promise<void> {
      await trx
        .insertInto('human_credentials')
        .values({ user_id: userId, password_hash: passwordHash, updated_at: now })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ password_hash: passwordHash, updated_at: now }))
        .execute();
    },
    async passwordHash(userId: number): Promise<string | undefined> {
      const row = await db.selectFrom('human_credentials').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
      return row?.password_hash;
    },
    async setMachineToken(userId: number, token: StoredMachineToken, now: string, trx: Kysely<Database> = db): Promise<void> {
      const values = { token_lookup: token.lookup, token_cipher: token.cipher, token_hint: token.hint, token_updated_at: now };
      await trx
        .insertInto('machine_credentials')
        .values({ user_id: userId, ...values })
        .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
        .execute();
    },
    async machineByLookup(lookup: string): Promise<MachineCredentialRow | undefined> {
      return db.selectFrom('machine_credentials').selectAll().where('token_lookup', '=', lookup).executeTakeFirst();
    },
    async machineOf(userId: number): Promise<MachineCredentialRow | undefined> {
      return db.selectFrom('machine_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst();
    },
    async machinesOf(userIds: readonly number[]): Promise<MachineCredentialRow[]> {
      if (userIds.length === 0) return [];
      return db
        .selectFrom('machine_credentials')
        .selectAll()
        .where('user_id', 'in', [...userIds])
        .execute();
    },
  };
}
export type CredentialsRepo = ReturnType<typeof createCredentialsRepo>;
