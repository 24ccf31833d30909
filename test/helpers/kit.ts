// The project's own tests on the test kit (src/testing, @agent-hub/testing): a kit hub per store driver,
// on a fresh PostgreSQL database (created and dropped here) or on the kit's own temporary SQLite file;
// and a kit cluster of in-process nodes on a fresh PostgreSQL database and the shared Redis.
import { startTestHub, type TestHub, type TestHubOptions } from '../../src/testing/index.js';
import { SHARED_REDIS_URL } from './cluster.js';
import { createTestDatabase, type Driver } from './db.js';

export async function startKitHub(driver: Driver, options: Omit<TestHubOptions, 'databaseUrl'> = {}): Promise<TestHub> {
  if (driver === 'sqlite') return startTestHub(options);
  const database = await createTestDatabase('postgres');
  const hub = await startTestHub({ ...options, databaseUrl: database.env['DATABASE_URL'] }).catch(async (err: unknown) => {
    await database.drop();
    throw err;
  });
  const stop = hub.stop;
  return Object.assign(hub, {
    async stop() {
      await stop();
      await database.drop();
    },
  });
}

/** `nodes` in-process nodes of one hub in cluster mode. */
export function startKitCluster(nodes: number, options: Omit<TestHubOptions, 'databaseUrl' | 'redisUrl' | 'nodes'> = {}): Promise<TestHub> {
  return startKitHub('postgres', { ...options, nodes, redisUrl: SHARED_REDIS_URL });
}
