// A connect storm's presence writes on PostgreSQL, old and new in one run: AGENTS agents each go
// ONLINE (a cluster's ordered change, with a seq), handed to the ordered writer of before 0020 (a
// transaction that holds the commit-order row lock while it writes) in batches of BATCH changes, two in
// flight, as the pipeline cuts them. "each": one UPDATE per change, as before; "one": one statement
// per batch (writePresence). Rates in changes/s, and how long each batch held the commit-order lock
// (every node's commits wait that long).
//   npx tsx bench/micro/presenceWrites.ts   (AGENTS=20000 BATCH=500 VARIANTS=each,one,each,one)
import pg from 'pg';
import { pino } from 'pino';
import { createCommitOrder } from '../../src/delivery/commit.js';
import { postgresBatchWriter } from '../../src/store/batchWriter.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createPgPool } from '../../src/store/pgPool.js';

const AGENTS = Number(process.env.AGENTS ?? 20_000);
const BATCH = Number(process.env.BATCH ?? 500);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const variants = (process.env.VARIANTS ?? 'each,one,each,one').split(',');

const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
const database = `bench_presence_${process.pid}`;
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(PG_URL);
url.pathname = `/${database}`;
try {
  const setup = openStore({ driver: 'postgres', url: url.toString() });
  await migrate(setup);
  await setup.close();
  const pool = createPgPool({ url: url.toString(), max: 10 }, pino({ enabled: false }));
  const ids = (
    await pool.query<{ id: string }>(
      `INSERT INTO users (username, role, actor_type, status, online, created_at, updated_at)
       SELECT 'a' || g, 'AGENT', 'SYSTEM', 'OFFLINE', 0, 'now', 'now' FROM generate_series(1, $1) g RETURNING id`,
      [AGENTS],
    )
  ).rows.map((r) => Number(r.id));
  let seq = 1;
  for (const [round, variant] of variants.entries()) {
    const write = postgresBatchWriter(pool, { ordered: 'transaction', presenceInOneStatement: variant === 'one' });
    const commits = createCommitOrder({
      store: { writeBatch: write, writeDepth: 2, writeBudget: { rows: 20_000, bytes: 16 * 1024 * 1024 } },
      meter: { committed: () => undefined, failed: () => undefined },
      logger: { error: console.error },
    });
    // Each round moves every agent the other way, so every change is a real write.
    const online = round % 2 === 0 ? 1 : 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const held: number[] = [];
    let stored = 0;
    for (let from = 0; from < ids.length; from += BATCH) {
      const presence = ids.slice(from, from + BATCH).map((userId) => ({
        userId,
        patch: { status: online ? 'ONLINE' : 'OFFLINE', online, last_seen_at: new Date().toISOString(), last_report: 'websocket_connected', seq: seq++ },
        at: new Date().toISOString(),
      }));
      const posted = performance.now();
      await commits.commit({
        write: { messages: [], presence, threads: [] },
        size: presence.length,
        needsWrite: true,
        complete: (outcome, committedAt) => {
          if ('err' in outcome) throw outcome.err;
          stored += outcome.result.presence.length;
          held.push(committedAt - posted);
        },
      });
    }
    await commits.last;
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    held.sort((a, b) => a - b);
    console.log(
      `${variant.padEnd(5)} ${AGENTS} changes in batches of ${BATCH}: ${Math.round((AGENTS / ms) * 1000)
        .toString()
        .padStart(
          7,
        )} changes/s, stored ${stored}, batch → committed p50 ${held[Math.floor(held.length / 2)]!.toFixed(0)} ms p99 ${held[Math.floor(held.length * 0.99)]!.toFixed(0)} ms, ` +
        `this process's CPU ${((cpu.user + cpu.system) / 1000 / (AGENTS / 1000)).toFixed(1)} ms per 1,000 changes`,
    );
  }
  await pool.end();
} finally {
  await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
  await admin.end();
}
