// The SQLite group-commit writer's thread: its own connection to the hub's database file, running
// one transaction per batch the main thread posts. With `synchronous=FULL` each commit waits for
// the disk; here that wait overlaps the main thread's work instead of stopping its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { sqliteBatchTransaction, type WriteBatch } from './batchWriter.js';

export interface WriterRequest {
  seq: number;
  batch: WriteBatch;
}

export type WriterReply = { seq: number; ok: true; result: ReturnType<ReturnType<typeof sqliteBatchTransaction>> } | { seq: number; ok: false; message: string; code?: string };

const { path } = workerData as { path: string };
const raw = new BetterSqlite3(path);
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = FULL');
raw.pragma('foreign_keys = ON');
raw.pragma('busy_timeout = 5000');
const write = sqliteBatchTransaction(raw);

parentPort!.on('message', ({ seq, batch }: WriterRequest) => {
  let reply: WriterReply;
  try {
    reply = { seq, ok: true, result: write(batch) };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    reply = { seq, ok: false, message: e.message ?? String(err), code: e.code };
  }
  parentPort!.postMessage(reply);
});
