// The store stage: the database brought up to date, and one set of repositories over it.
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { createAuthorizationsRepo } from '../store/repositories/authorizations.js';
import { createChatRepo } from '../store/repositories/chat.js';
import { createClusterRepo } from '../store/repositories/cluster.js';
import { createCredentialsRepo } from '../store/repositories/credentials.js';
import { createMessagesRepo } from '../store/repositories/messages.js';
import { createThreadsRepo } from '../store/repositories/threads.js';
import { createUsersRepo } from '../store/repositories/users.js';

/** Applies the pending migrations; the names of all applied ones (readiness checks them later). */
export async function migrateStore(options: { store: Store; logger: Logger; migrationsDir?: string }): Promise<string[]> {
  const { store, logger } = options;
  const applied = await migrate(store, { dir: options.migrationsDir, logger });
  logger.info({ driver: store.driver, applied: applied.length }, 'store ready');
  return (await store.migrations.applied()).map((m) => m.name);
}

/** One set of repositories over the store, shared by the delivery core and the features. */
export function createRepos(options: { store: Store }) {
  const { db } = options.store;
  return {
    users: createUsersRepo(db),
    credentials: createCredentialsRepo(db),
    messages: createMessagesRepo(db),
    threads: createThreadsRepo(db),
    chat: createChatRepo(db),
    authorizations: createAuthorizationsRepo(db),
    cluster: createClusterRepo(db),
  };
}
export type Repos = ReturnType<typeof createRepos>;
