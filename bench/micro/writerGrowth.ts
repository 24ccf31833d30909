// Cause analysis: the SQLite writer's transaction alone (no thread, no hub) at growing table sizes,
// with the body (inserts) and the COMMIT (WAL write, fsync, checkpoint) timed apart, per variant.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { sqliteBatchStatements, type MessageInsert } from '../../src/store/batchWriter.js';
import { openSqliteConnection } from '../../src/store/sqliteConnection.js';

const SEGMENT = Number(process.env.SEGMENT ?? 60_000);
const SEGMENTS = Number(process.env.SEGMENTS ?? 6);
const DEFAULT_BATCH = Number(process.env.BATCH ?? 1000);
const variants = (process.env.VARIANTS ?? 'default,cache64,nockpt').split(',');

function row(n: number): MessageInsert {
  const agent = n % 100;
  const human = 1000 + (Math.floor(n / 100) % 20);
  const text = `${Date.now()} ${'x'.repeat(80)}`;
  return {
    type: 'CHAT',
    sender_id: 10 + agent,
    sender_name: `agent-${agent}`,
    sender_role: 'AGENT',
    target_id: human,
    target_role: 'MEMBER',
    payload: JSON.stringify({ type: 'CHAT', payload: text, target_id: human, local_id: `run.${agent}.${n}` }),
    level: null,
    content: text,
    local_id: `run.${agent}.${Math.floor(n / 100)}`,
    conversation_id: agent * 20 + (human - 1000) + 1,
    stream_id: null,
    created_at: new Date().toISOString(),
  };
}

async function runVariant(name: string) {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'writer-growth-'));
  const path = join(dir, 'hub.db');
  const store = openStore({ driver: 'sqlite', path });
  await migrate(store);
  await store.close();
  const raw = openSqliteConnection(path);
  if (name.includes('cache64')) raw.pragma('cache_size = -65536');
  if (name.includes('nockpt')) raw.pragma('wal_autocheckpoint = 0');
  const ckpt = /ckpt(\d+)/.exec(name);
  if (ckpt) raw.pragma(`wal_autocheckpoint = ${ckpt[1]}`);
  const BATCH = Number(/b(\d+)/.exec(name)?.[1] ?? DEFAULT_BATCH);
  if (name.includes('normal')) raw.pragma('synchronous = NORMAL');
  const write = sqliteBatchStatements(raw);
  // The body alone: the same inserts in a transaction we commit by hand, to time COMMIT apart.
  let n = 0;
  const out: string[] = [];
  for (let s = 0; s < SEGMENTS; s++) {
    let body = 0;
    let commit = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let b = 0; b < SEGMENT / BATCH; b++) {
      const rows: MessageInsert[] = [];
      for (let i = 0; i < BATCH; i++) rows.push(row(n++));
      const a = performance.now();
      raw.exec('BEGIN');
      write({ messages: rows, presence: [], threads: [] });
      const c = performance.now();
      raw.exec('COMMIT');
      const d = performance.now();
      body += c - a;
      commit += d - c;
    }
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const wal = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    out.push(
      `${name}\t${n - SEGMENT}→${n}\t${Math.round((SEGMENT / ms) * 1000)} rows/s\tbody ${Math.round(body)} ms\tcommit ${Math.round(commit)} ms\tcpu ${Math.round((cpu.user + cpu.system) / 1000)} ms (sys ${Math.round(cpu.system / 1000)})\twal ${(wal / 1e6).toFixed(1)} MB\tdb ${(statSync(path).size / 1e6).toFixed(0)} MB`,
    );
    console.log(out.at(-1));
  }
  raw.close();
  rmSync(dir, { recursive: true, force: true });
}

for (const v of variants) await runVariant(v);
