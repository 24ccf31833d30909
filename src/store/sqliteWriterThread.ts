// The SQLite group-commit writer's thread: its own connection to the hub's database file, running
// one transaction per batch the main thread posts. With `synchronous=FULL` each commit waits for
// the disk; here that wait overlaps the main thread's work instead of stopping its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { sqliteBatchTransaction, sqliteDefaultThreads, type BatchResult, type DefaultThreadRequest, type WriteBatch } from './batchWriter.js';
import { openSqliteConnection } from './sqliteConnection.js';

export type WriterRequest = { seq: number; op: 'batch'; batch: WriteBatch } | { seq: number; op: 'threads'; threads: DefaultThreadRequest[] };

export type WriterReply = { seq: number; ok: true; result: BatchResult | number[] } | { seq: number; ok: false; message: string; code?: string };

const { path } = workerData as { path: string };
const connection = openSqliteConnection(path);
const write = sqliteBatchTransaction(connection);
const defaultThreads = sqliteDefaultThreads(connection);

parentPort!.on('message', (request: WriterRequest) => {
  const { seq } = request;
  let reply: WriterReply;
  try {
    reply = { seq, ok: true, result: request.op === 'batch' ? write(request.batch) : defaultThreads(request.threads) };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    reply = { seq, ok: false, message: e.message ?? String(err), code: e.code };
  }
  parentPort!.postMessage(reply);
});
