// A cluster node's message writer in its own process, writing one ordered batch after another, for the
// commit-order test: the test pauses it (SIGSTOP) at any moment, as a paused or starved node would be.
// Arguments: the database URL, the writer ('statement', the hub's, or 'transaction', the one before
// it). Prints `writing` once it starts, then `committed <n>` or `failed <n>: <why>` per batch; on
// SIGTERM it ends after the batch under way.
import pino from 'pino';
import { postgresBatchWriter, type OrderedCommits } from '../../src/store/batchWriter.js';
import { createPgPool } from '../../src/store/pgPool.js';
import { logRow } from './messageRows.js';

const [databaseUrl, ordered] = process.argv.slice(2) as [string, OrderedCommits];
const pool = createPgPool({ url: databaseUrl, max: 2 }, pino({ level: 'silent' }));
const write = postgresBatchWriter(pool, { ordered });

let stopping = false;
process.once('SIGTERM', () => (stopping = true));
process.stdout.write('writing\n');
for (let n = 1; !stopping; n++) {
  try {
    await write({ messages: [logRow({ id: 7, name: 'holder' }, `held ${n}`, `held-${n}`)], presence: [], threads: [] });
    process.stdout.write(`committed ${n}\n`);
  } catch (err) {
    process.stdout.write(`failed ${n}: ${(err as Error).message}\n`);
  }
}
await pool.end();
