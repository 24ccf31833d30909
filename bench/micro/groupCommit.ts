// The SQLite writer alone, old and new in one run: batches of 1,000 rows (the pipeline's cut before
// group commit) handed to the real writer thread through the real commit order, as fast as the
// writer takes them, while the table grows. "before": one transaction per batch, two in flight (the
// writer as it was); "group": the thread commits every batch that waited as one transaction.
// PostgreSQL (a scratch database on BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test):
// "pg-before" one batch of 1,000 at a time (as it was), "pg-pipelined" two in flight, "pg-4000" two in
// flight of 4,000 rows (the pipeline's batch now).
//   npx tsx bench/micro/groupCommit.ts   (SEGMENT=60000 SEGMENTS=6 VARIANTS=before,group,group-normal,pg-before,pg-pipelined,pg-4000)
import { closeSync, fdatasyncSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createCommitOrder } from '../../src/delivery/commit.js';
import { postgresBatchWriter, type BatchWriter, type MessageInsert, type WriteBatch } from '../../src/store/batchWriter.js';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createPgPool } from '../../src/store/pgPool.js';
import { SQLITE_GROUP_BYTES, SQLITE_GROUP_ROWS, startSqliteWriter } from '../../src/store/sqliteWriter.js';

const SEGMENT = Number(process.env.SEGMENT ?? 60_000);
const SEGMENTS = Number(process.env.SEGMENTS ?? 6);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const variants = (process.env.VARIANTS ?? 'before,group,group-normal').split(',');

/** Rows shaped like the targeted scenario's: 100 agents → 20 humans, 2,000 conversations. */
function row(n: number): MessageInsert {
  const agent = n % 100;
  const human = Math.floor(n / 100) % 20;
  const text = `${Date.now()} ${'x'.repeat(86)}`;
  return {
    type: 'CHAT',
    sender_id: 100 + agent,
    sender_name: `agent-${agent}`,
    sender_role: 'AGENT',
    target_id: 1000 + human,
    target_role: 'MEMBER',
    payload: JSON.stringify(text),
    level: null,
    content: text,
    local_id: `run.${agent}.${Math.floor(n / 100)}`,
    conversation_id: agent * 20 + human + 1,
    stream_id: null,
    created_at: new Date().toISOString(),
  };
}

/** Median of a few 4 KB write + fdatasync in the benchmark's folder: how slow the disk is right now. */
function fsyncMs(dir: string): number {
  const fd = openSync(join(dir, 'probe'), 'w');
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    writeSync(fd, Buffer.alloc(4096, i));
    fdatasyncSync(fd);
    samples.push(performance.now() - t);
  }
  closeSync(fd);
  return samples.sort((a, b) => a - b)[2]!;
}

/** CPU ms of each thread of this process (utime + stime from /proc), by thread id. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
  }
  return out;
}

/** The busiest thread other than the main one over the interval: the writer thread. */
function writerCpu(before: Map<string, number>, after: Map<string, number>): number {
  let most = 0;
  for (const [tid, ms] of after) if (tid !== String(process.pid)) most = Math.max(most, ms - (before.get(tid) ?? 0));
  return most;
}

const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

interface Writer {
  store: { writeBatch: BatchWriter; writeDepth: number; writeBudget?: { rows: number; bytes: number } };
  batch: number;
  close(): Promise<void>;
}

async function sqliteWriter(name: string, dir: string): Promise<Writer> {
  const path = join(dir, 'hub.db');
  const setup = openStore({ driver: 'sqlite', path });
  await migrate(setup);
  await setup.close();
  const before = name === 'before';
  const writer = startSqliteWriter(path, { synchronous: name.endsWith('normal') ? 'normal' : 'full', groupRows: before ? 0 : undefined });
  return {
    store: {
      writeBatch: writer.write,
      writeDepth: before ? 2 : 64,
      writeBudget: before ? undefined : { rows: 2 * SQLITE_GROUP_ROWS, bytes: 2 * SQLITE_GROUP_BYTES },
    },
    batch: 1000,
    close: () => writer.close(),
  };
}

async function postgresWriter(name: string): Promise<Writer> {
  const database = `bench_writer_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const setup = openStore({ driver: 'postgres', url: url.toString() });
  await migrate(setup);
  await setup.close();
  const pool = createPgPool({ url: url.toString(), max: 10 }, pino({ enabled: false }));
  const before = name === 'pg-before';
  return {
    store: {
      writeBatch: postgresBatchWriter(pool, { pipelined: !before }),
      writeDepth: before ? 1 : 2,
      writeBudget: { rows: 20_000, bytes: 16 * 1024 * 1024 },
    },
    batch: name === 'pg-4000' ? 4000 : 1000,
    async close() {
      await pool.end();
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function runVariant(name: string) {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'group-commit-'));
  const writer = name.startsWith('pg') ? await postgresWriter(name) : await sqliteWriter(name, dir);
  const { store } = writer;
  const BATCH = writer.batch;
  const commits = createCommitOrder({ store, meter: { committed: () => undefined, failed: () => undefined }, logger: { error: console.error } });
  let n = 0;
  for (let s = 0; s < SEGMENTS; s++) {
    const latencies: number[] = [];
    const disk = fsyncMs(dir);
    const cpu0 = process.cpuUsage();
    const threads0 = threadCpu();
    const t0 = performance.now();
    for (let b = 0; b < SEGMENT / BATCH; b++) {
      const messages: MessageInsert[] = [];
      for (let i = 0; i < BATCH; i++) messages.push(row(n++));
      const write: WriteBatch = { messages, presence: [], threads: [] };
      const posted = performance.now();
      await commits.commit({
        write,
        size: BATCH,
        needsWrite: true,
        complete: (outcome, committedAt) => {
          if ('err' in outcome) throw outcome.err;
          latencies.push(committedAt - posted);
        },
      });
    }
    await commits.last;
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const writerMs = writerCpu(threads0, threadCpu());
    console.log(
      [
        name.padEnd(12),
        `${String(n - SEGMENT).padStart(6)}→${String(n).padEnd(6)}`,
        `${String(Math.round((SEGMENT / ms) * 1000)).padStart(6)} rows/s`,
        `cpu ${Math.round((cpu.user + cpu.system) / 1000 / (SEGMENT / 10_000))} ms/10k rows (sys ${Math.round(cpu.system / 1000 / (SEGMENT / 10_000))}, writer thread ${Math.round(writerMs / (SEGMENT / 10_000))})`,
        `batch→committed p50 ${Math.round(pct(latencies, 0.5))} p99 ${Math.round(pct(latencies, 0.99))} ms`,
        `fsync ${disk.toFixed(1)} ms`,
      ].join('  '),
    );
  }
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
}

for (const v of variants) await runVariant(v);
