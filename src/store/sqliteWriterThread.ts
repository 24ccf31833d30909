// The SQLite group-commit writer's thread: its own connection to the hub's database file, running
// one transaction per batch the main thread posts. With `synchronous=FULL` each commit waits for
// the disk; here that wait overlaps the main thread's work instead of stopping its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteBatchTransaction, type BatchResult, type WriteBatch } from './batchWriter.js';
import { openSqliteConnection } from './sqliteConnection.js';

export interface WriterRequest {
  seq: number;
  batch: WriteBatch;
}

export type WriterReply = { seq: number; ok: true; result: BatchResult } | { seq: number; ok: false; message: string; code?: string };

const { path } = workerData as { path: string };
const write = sqliteBatchTransaction(openSqliteConnection(path));

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
