// The project's own tests on the test kit (src/testing, @agent-hub/testing): a kit hub per store driver,
// on a fresh PostgreSQL database (created and dropped here) or on the kit's own temporary SQLite file.
import { startTestHub, type TestHub, type TestHubOptions } from '../../src/testing/index.js';
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
