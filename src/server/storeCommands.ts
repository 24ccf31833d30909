// `agent-hub migrate` and `agent-hub create-admin`: the configured store (the same configuration as
// `agent-hub start`) brought up to date, and an admin added to it, without starting the hub. Both may
// run beside a running hub: migrations are idempotent and each runs in its own transaction.
import pino from 'pino';
import { createPasswordHasher } from '../auth/passwords.js';
import { createSystemClock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import { HubError } from '../errors.js';
import { createLogger } from '../logger.js';
import { registerBody } from '../protocol/http.js';
import { bootstrap } from '../services/bootstrap.js';
import { createHumanUser } from '../services/users.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { createCredentialsRepo } from '../store/repositories/credentials.js';
import { createUsersRepo } from '../store/repositories/users.js';

/** Where a command prints its result (stdout); failures are thrown. */
export interface CommandOutput {
  stdout(line: string): void;
}

async function withStore<T>(run: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // The commands' own output is on stdout; the store's log lines go to stderr.
  const logger = createLogger(config.logLevel, pino.destination({ fd: 2, sync: true }));
  const store = openStore(config.db, { logger });
  try {
    return await run(store, config);
  } finally {
    await store.close();
  }
}

/** Applies the pending migrations; prints each one applied, then how many the database has. */
export async function migrateCommand(out: CommandOutput): Promise<void> {
  await withStore(async (store, config) => {
    const applied = await migrate(store);
    for (const name of applied) out.stdout(`applied ${name}`);
    const total = (await store.migrations.applied()).length;
    const where = config.db.driver === 'sqlite' ? config.db.path : 'PostgreSQL';
    out.stdout(applied.length === 0 ? `up to date: ${total} migrations in ${where}` : `${applied.length} applied: ${total} migrations in ${where}`);
  });
}

export class CommandError extends Error {}

/**
 * Adds an admin. On an empty database it is the bootstrap admin (id 1, with Butler as id 2, as the
 * hub's first start would create them with this name and password); otherwise one more admin.
 */
export async function createAdminCommand(input: { username: string; password: string }, out: CommandOutput): Promise<void> {
  const parsed = registerBody.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const why =
      issue.code === 'too_small'
        ? `must be at least ${String(issue.minimum)} characters`
        : issue.code === 'too_big'
          ? `must be at most ${String(issue.maximum)} characters`
          : issue.message;
    throw new CommandError(`the ${String(issue.path[0])} ${why}`);
  }
  const { username, password } = parsed.data;
  await withStore(async (store) => {
    await migrate(store);
    const clock = createSystemClock();
    const deps = { db: store.db, users: createUsersRepo(store.db), credentials: createCredentialsRepo(store.db), passwords: createPasswordHasher(), clock };
    if (await bootstrap({ ...deps, admin: { username, password } })) {
      out.stdout(`created the admin ${username} (id 1) and Butler (id 2) in the empty database`);
      return;
    }
    try {
      const user = await createHumanUser(deps, { username, password, role: 'ADMIN' });
      out.stdout(`created the admin ${username} (id ${user.id})`);
    } catch (err) {
      if (err instanceof HubError && err.kind === 'conflict') throw new CommandError(`a user named "${username}" already exists`);
      throw err;
    }
  });
}
