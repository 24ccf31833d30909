// A cluster node's message writer in its own process, writing one ordered batch after another, for the
// commit-order test: the test pauses it (SIGSTOP) while it holds the order, as a paused or starved node
// would. Arguments: the database URL, CLUSTER_COMMIT_HOLD in ms, its sessions' application_name. Prints
// `committed <n>` and `failed <n>: <why>` per batch, and `writing` once it starts.
import pino from 'pino';
import { postgresBatchWriter } from '../../src/store/batchWriter.js';
import { createPgPool } from '../../src/store/pgPool.js';
import { logRow } from './messageRows.js';

const [databaseUrl, holdMs, applicationName] = process.argv.slice(2) as [string, string, string];
const pool = createPgPool({ url: databaseUrl, applicationName, max: 2 }, pino({ level: 'silent' }));
const write = postgresBatchWriter(pool, { ordered: { holdMs: Number(holdMs) } });

process.stdout.write('writing\n');
for (let n = 1; ; n++) {
  try {
    await write({ messages: [logRow({ id: 7, name: 'holder' }, `held ${n}`, `held-${n}`)], presence: [], threads: [] });
    process.stdout.write(`committed ${n}\n`);
  } catch (err) {
    process.stdout.write(`failed ${n}: ${(err as Error).message}\n`);
  }
}
