// Cluster mode's message writes on PostgreSQL, old and new in one run: NODES writers (each with its
// own pool, as nodes have) commit batches of BATCH messages side by side for SECONDS, each through its
// own commit order (two batches in flight, as the pipeline runs them), every batch taking the one
// commit-order row. "transaction": the writer before 0020, a transaction holding the order over its
// round trips; "statement": the hub's, one statement per batch (hub_write_ordered_batch). Messages
// committed per second over all writers, and each batch's time from posting to committed.
//   npx tsx bench/micro/orderedCommits.ts   (NODES=4 BATCH=20 SECONDS=10 VARIANTS=transaction,statement,transaction,statement)
import { pino } from 'pino';
import { createCommitOrder } from '../../src/delivery/commit.js';
import { postgresBatchWriter, type MessageInsert, type OrderedCommits } from '../../src/store/batchWriter.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createPgPool } from '../../src/store/pgPool.js';
import { postgresStores } from '../lib/stores.js';

const NODES = Number(process.env.NODES ?? 4);
const BATCH = Number(process.env.BATCH ?? 20);
const SECONDS = Number(process.env.SECONDS ?? 10);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const variants = (process.env.VARIANTS ?? 'transaction,statement,transaction,statement').split(',') as OrderedCommits[];

const row = (node: number, n: number): MessageInsert => ({
  type: 'CHAT',
  sender_id: node + 1,
  sender_name: `node-${node}`,
  sender_role: 'AGENT',
  target_id: 100,
  target_role: 'MEMBER',
  payload: JSON.stringify('x'.repeat(100)),
  level: null,
  content: 'x'.repeat(100),
  local_id: `m${n}`,
  conversation_id: null,
  stream_id: null,
  created_at: new Date().toISOString(),
});

const stores = await postgresStores(PG_URL);
try {
  const url = (await stores.create('ordered_commits')).env.DATABASE_URL!;
  const setup = openStore({ driver: 'postgres', url });
  await migrate(setup);
  await setup.close();
  let next = 0;
  console.log(`${NODES} writers, batches of ${BATCH} messages, ${SECONDS} s per variant`);
  for (const variant of variants) {
    const pools = Array.from({ length: NODES }, () => createPgPool({ url, max: 10 }, pino({ enabled: false })));
    const deadline = performance.now() + SECONDS * 1000;
    const latencies: number[] = [];
    let committed = 0;
    const t0 = performance.now();
    await Promise.all(
      pools.map(async (pool, node) => {
        const write = postgresBatchWriter(pool, { ordered: variant });
        const commits = createCommitOrder({
          store: { writeBatch: write, writeDepth: 2 },
          meter: { committed: () => undefined, failed: () => undefined },
          logger: { error: console.error },
        });
        while (performance.now() < deadline) {
          const posted = performance.now();
          const messages = Array.from({ length: BATCH }, () => row(node, next++));
          await commits.commit({
            write: { messages, presence: [], threads: [] },
            size: messages.length,
            needsWrite: true,
            complete: (outcome, committedAt) => {
              if ('err' in outcome) throw outcome.err;
              committed += outcome.result.messages.length;
              latencies.push(committedAt - posted);
            },
          });
        }
        await commits.last;
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    await Promise.all(pools.map((pool) => pool.end()));
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(1);
    console.log(
      `${variant.padEnd(11)} ${Math.round(committed / seconds)
        .toString()
        .padStart(7)} messages/s, batch posted → committed p50 ${at(0.5)} ms p99 ${at(0.99)} ms`,
    );
  }
} finally {
  await stores.dispose();
}
