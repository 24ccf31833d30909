// Child process for the crash test: applies migrations from a folder and kills itself with SIGKILL
// inside the named migration's transaction, after its SQL ran but before COMMIT.
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import type { DbConfig } from '../../src/config.js';

const [dbJson, dir, crashAt] = process.argv.slice(2) as [string, string, string];
const store = openStore(JSON.parse(dbJson) as DbConfig);
await migrate(store, {
  dir,
  beforeCommit(name) {
    if (name === crashAt) process.kill(process.pid, 'SIGKILL');
  },
});
process.stdout.write('finished without crashing\n');
await store.close();
