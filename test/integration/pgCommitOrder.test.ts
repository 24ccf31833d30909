// Cluster mode's commit order on PostgreSQL when one node stops answering while it holds it. Every
// node's batch takes the commit-order row lock before it draws ids and keeps it to COMMIT, over a few
// round trips its own process drives; a node paused there (a stop signal, a long GC, a starved CPU)
// held every other node's writes until it resumed, or up to the session's idle-in-transaction limit
// (60 s by default), their batches failing at the statement timeout meanwhile. Now each ordered
// transaction carries its own limit (CLUSTER_COMMIT_HOLD): the server ends the paused node's session
// and the others go on; the paused node's batch fails (never acknowledged) and its next one commits.
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
const HOLD_MS = 500;
const HOLDER_APPLICATION_NAME = 'commit-order-holder';

describe.skipIf(!inject('pgUrl'))('the commit order with a node paused while it holds it', () => {
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

  /** Whether the holder's session is inside an ordered transaction, past its lock (idle: waiting for the holder). */
  async function holderHoldsTheOrder(): Promise<boolean> {
    const { rows } = await admin!.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid JOIN pg_class c ON c.oid = l.relation
        WHERE a.application_name = $1 AND a.state = 'idle in transaction' AND c.relname = 'cluster_commit_order' AND l.mode = 'RowShareLock' AND l.granted`,
      [HOLDER_APPLICATION_NAME],
    );
    return Number(rows[0]!.n) > 0;
  }

  it("ends the paused node's transaction after CLUSTER_COMMIT_HOLD, so another node's batch commits; the paused node's next batch commits", async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    holder = startProcess(process.execPath, ['--import', 'tsx', HOLDER, url, String(HOLD_MS), HOLDER_APPLICATION_NAME]);
    await holder.line('stdout', /^committed \d+$/, 30_000);

    // Stopped at a random moment it may be between batches: stopped again until it is caught holding the order.
    let caught = false;
    for (let attempt = 0; attempt < 200 && !caught; attempt++) {
      holder.child.kill('SIGSTOP');
      caught = await holderHoldsTheOrder();
      if (!caught) holder.child.kill('SIGCONT');
    }
    expect(caught, 'the holder was never caught inside its ordered transaction').toBe(true);
    const stoppedAt = performance.now();

    pool = createPgPool({ url, max: 2 }, pino({ level: 'silent' }));
    const write = postgresBatchWriter(pool, { ordered: { holdMs: HOLD_MS } });
    const written = await write({ messages: [logRow({ id: 8, name: 'runner' }, 'from a node that kept running', 'runner-1')], presence: [], threads: [] });
    const waitedMs = performance.now() - stoppedAt;
    expect(written.messages).toHaveLength(1);
    // Before: it waited for the paused node (here for ever: the statement timeout of 15 s failed it first).
    expect(waitedMs).toBeLessThan(HOLD_MS + 3_000);
    expect(holder.child.exitCode).toBeNull();

    // Resumed, the paused node finds its transaction ended (its batch fails, unacknowledged) and goes on.
    const failed = Number(/^failed (\d+):/.exec(await (holder.child.kill('SIGCONT'), holder.line('stdout', /^failed \d+: .*idle-in-transaction/i)))![1]);
    await vi.waitFor(() => expect(holder!.stdout.some((l) => /^committed (\d+)$/.test(l) && Number(l.split(' ')[1]) > failed)).toBe(true), { timeout: 15_000 });
    const { rows } = await admin.query<{ local_id: string }>('SELECT local_id FROM messages WHERE local_id = $1', [`held-${failed}`]);
    expect(rows).toEqual([]);
  }, 60_000);
});
