// The store stage: the database brought up to date, its read side for expensive reads, and one set
// of repositories over them.
import type { Logger } from 'pino';
import type { DbConfig, ReadsConfig } from '../config.js';
import type { Store } from '../store/db.js';
import { openPostgresReads } from '../store/postgresReads.js';
import type { Reads } from '../store/reads.js';
import { openSqliteReads } from '../store/sqliteReaders.js';
import { migrate } from '../store/migrate.js';
import { createA2aPushConfigsRepo } from '../store/repositories/a2aPushConfigs.js';
import { createA2aRemoteAgentsRepo } from '../store/repositories/a2aRemoteAgents.js';
import { createA2aTasksRepo } from '../store/repositories/a2aTasks.js';
import { createAuthorizationsRepo } from '../store/repositories/authorizations.js';
import { createChatRepo } from '../store/repositories/chat.js';
import { createClusterRepo } from '../store/repositories/cluster.js';
import { createAccessTokensRepo } from '../store/repositories/accessTokens.js';
import { createCredentialsRepo } from '../store/repositories/credentials.js';
import { createMessagesRepo } from '../store/repositories/messages.js';
import { createOpsInventoryRepo } from '../store/repositories/opsInventory.js';
import { createStatsRepo } from '../store/repositories/stats.js';
import { createThreadsRepo } from '../store/repositories/threads.js';
import { createUsersRepo } from '../store/repositories/users.js';

/** Applies the pending migrations; the names of all applied ones (readiness checks them later). */
export async function migrateStore(options: { store: Store; logger: Logger; migrationsDir?: string }): Promise<string[]> {
  const { store, logger } = options;
  const applied = await migrate(store, { dir: options.migrationsDir, logger });
  logger.info({ driver: store.driver, applied: applied.length }, 'store ready');
  return (await store.migrations.applied()).map((m) => m.name);
}

/** The read side of the expensive reads: reader threads on SQLite, a pool of its own on PostgreSQL. */
export function openReads(options: { store: Store; db: DbConfig; reads: ReadsConfig; logger: Logger }): Reads {
  const settings = { poolSize: options.reads.poolSize, timeoutMs: options.reads.timeoutMs };
  return options.db.driver === 'sqlite'
    ? openSqliteReads(options.db.path, settings, options.store.db)
    : openPostgresReads(options.db.url, settings, options.logger);
}

/**
 * One set of repositories over the store, shared by the delivery core and the features; `heavy`
 * holds the ones behind expensive reads, on the read side.
 */
export function createRepos(options: { store: Store; reads: Reads }) {
  const { db } = options.store;
  return {
    heavy: { messages: createMessagesRepo(options.reads.db), stats: createStatsRepo(options.reads.db, options.store.driver) },
    users: createUsersRepo(db, { batchTokenLookups: options.store.driver === 'postgres' }),
    credentials: createCredentialsRepo(db),
    accessTokens: createAccessTokensRepo(db),
    messages: createMessagesRepo(db),
    threads: createThreadsRepo(db),
    a2aTasks: createA2aTasksRepo(db),
    a2aPushConfigs: createA2aPushConfigsRepo(db),
    a2aRemoteAgents: createA2aRemoteAgentsRepo(db),
    chat: createChatRepo(db),
    authorizations: createAuthorizationsRepo(db),
    cluster: createClusterRepo(db),
    opsInventory: createOpsInventoryRepo(db),
  };
}
export type Repos = ReturnType<typeof createRepos>;
