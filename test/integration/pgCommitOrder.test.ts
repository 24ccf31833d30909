// Cluster mode's commit order on PostgreSQL when one node stops at any moment (a stop signal, a long
// GC, a starved CPU). Every node's batch takes the commit-order row lock before it draws ids. The
// writer before took it in a transaction and kept it to COMMIT over a few round trips its own process
// drove: a node paused there held every other node's writes (until the idle-in-transaction limit
// ended its session). Now each batch is one statement (migrations/0020): the server holds the order
// only while it runs the batch, so a paused node holds nothing and loses nothing.
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { postgresBatchWriter } from '../../src/store/batchWriter.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createPgPool, type PgPool } from '../../src/store/pgPool.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { logRow } from '../helpers/messageRows.js';
import { startProcess, type ProcessRun } from '../helpers/processRun.js';

const HOLDER = fileURLToPath(new URL('../helpers/orderedWriterLoop.ts', import.meta.url));
const PAUSES = 20;
/** A batch of one row, with the other node paused: PostgreSQL's own time, far under a second. */
const BATCH_MS = 1_000;

describe.skipIf(!inject('pgUrl'))('the commit order with a node paused at any moment', () => {
  let database: TestDatabase;
  let url: string;
  let holder: ProcessRun | undefined;
  let pool: PgPool | undefined;
  let admin: pg.Client | undefined;

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    url = database.env.DATABASE_URL!;
    const store = openStore({ driver: 'postgres', url });
    await migrate(store);
    await store.close();
  });
  afterEach(async () => {
    if (holder && holder.child.exitCode === null) {
      holder.child.kill('SIGCONT');
      holder.child.kill('SIGKILL');
      await holder.exit();
    }
    await pool?.end();
    await admin?.end();
    await database.drop();
  });

  it("commits another node's batch at once whenever the paused node stopped, and the paused node's batches all commit once", async () => {
    holder = startProcess(process.execPath, ['--import', 'tsx', HOLDER, url, 'statement']);
    await holder.line('stdout', /^committed \d+$/, 30_000);
    pool = createPgPool({ url, max: 2 }, pino({ level: 'silent' }));
    const write = postgresBatchWriter(pool, { ordered: 'statement' });

    const waits: number[] = [];
    for (let pause = 1; pause <= PAUSES; pause++) {
      // Stopped wherever its loop is: between batches, waiting for its answer, or while the server runs its batch.
      const seen = holder.stdout.length;
      await vi.waitFor(() => expect(holder!.stdout.slice(seen).some((l) => l.startsWith('committed '))).toBe(true), { timeout: 15_000 });
      holder.child.kill('SIGSTOP');
      const t0 = performance.now();
      const written = await write({ messages: [logRow({ id: 8, name: 'runner' }, `while paused ${pause}`, `runner-${pause}`)], presence: [], threads: [] });
      waits.push(performance.now() - t0);
      expect(written.messages).toEqual([expect.objectContaining({ duplicate: false })]);
      holder.child.kill('SIGCONT');
    }
    // Before (a transaction holding the order over the node's round trips), most pauses caught it
    // holding: the batch waited for the idle-in-transaction limit, and that batch of the paused node failed.
    expect(Math.max(...waits), `waits: ${waits.map((w) => Math.round(w)).join(', ')} ms`).toBeLessThan(BATCH_MS);

    holder.child.kill('SIGTERM');
    await holder.exit();
    expect(holder.stdout.filter((l) => l.startsWith('failed ')).slice(0, 3)).toEqual([]);
    const committed = holder.stdout.filter((l) => l.startsWith('committed ')).length;
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ n: string; distinct_n: string }>(
      'SELECT count(*) AS n, count(DISTINCT local_id) AS distinct_n FROM messages WHERE sender_id = 7',
    );
    // Every batch it reported committed is stored, once.
    expect(rows[0]).toEqual({ n: String(committed), distinct_n: String(committed) });
  }, 120_000);
});
