// First start on an empty database: the admin (id 1), then Butler (id 2), as the dashboards expect.
// Butler gets no credential: it runs inside the hub, and nothing outside may act as it.
import type { Kysely } from 'kysely';
import { BUTLER_USERNAME } from '../protocol/roles.js';
import { isUniqueViolation } from '../store/errors.js';
import type { CredentialsRepo } from '../store/repositories/credentials.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Database } from '../store/schema.js';
import type { Clock } from '../clock.js';
import type { PasswordHasher } from '../auth/passwords.js';

export interface BootstrapDeps {
  db: Kysely<Database>;
  users: UsersRepo;
  credentials: CredentialsRepo;
  passwords: PasswordHasher;
  clock: Clock;
  admin: { username: string; password: string };
}

/** Returns true when it created the bootstrap users, false when the database already had users. */
export async function bootstrap(deps: BootstrapDeps): Promise<boolean> {
  const { db, users, credentials, passwords, clock, admin } = deps;
  if ((await users.count()) > 0) return false;
  const hash = await passwords.hash(admin.password);
  const now = clock();
  try {
    await db.transaction().execute(async (trx) => {
      const adminRow = await users.insert(
        { username: admin.username, role: 'ADMIN', actor_type: 'HUMAN', status: 'OFFLINE', online: 0, created_at: now, updated_at: now },
        trx,
      );
      await credentials.setPassword(adminRow.id, hash, now, trx);
      await users.insert(
        {
          username: BUTLER_USERNAME,
          role: 'BUTLER',
          actor_type: 'SYSTEM',
          agent_kind: 'butler',
          runtime_kind: 'in-process',
          description: 'Core agent: runs approved commands and relays between agents',
          status: 'OFFLINE',
          online: 0,
          created_at: now,
          updated_at: now,
        },
        trx,
      );
    });
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false; // another hub on the same database bootstrapped first
    throw err;
  }
}
