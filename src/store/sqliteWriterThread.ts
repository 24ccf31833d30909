// The SQLite group-commit writer's thread: its own connection to the hub's database file. Every
// batch the main thread posted while the previous commit waited for the disk goes into the next
// transaction together (up to a bound in rows and bytes), so the slower the fsync, the more rows
// each one carries. Each batch runs in its own savepoint: one that fails is refused alone. Replies
// go out after COMMIT returned, so with `synchronous=FULL` an answer still means "on disk".
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { batchCost, sqliteBatchTransaction, sqliteDefaultThreads, type BatchResult, type DefaultThreadRequest, type WriteBatch } from './batchWriter.js';
import { openSqliteConnection, type SqliteSynchronous } from './sqliteConnection.js';

export type WriterRequest = { seq: number; op: 'batch'; batch: WriteBatch } | { seq: number; op: 'threads'; threads: DefaultThreadRequest[] };

export type WriterReply = { seq: number; ok: true; result: BatchResult | number[] } | { seq: number; ok: false; message: string; code?: string };

export interface WriterThreadSettings {
  path: string;
  synchronous: SqliteSynchronous;
  /** One transaction takes posted batches up to these bounds (0 rows: one transaction per batch). */
  groupRows: number;
  groupBytes: number;
  /** Rows committed between two checkpoints, run after the replies are out. */
  checkpointRows: number;
}

const settings = workerData as WriterThreadSettings;
const connection = openSqliteConnection(settings.path, { synchronous: settings.synchronous });
const write = sqliteBatchTransaction(connection);
const defaultThreads = sqliteDefaultThreads(connection);
const port = parentPort!;
let rowsSinceCheckpoint = 0;

const costOf = (request: WriterRequest) =>
  request.op === 'batch' ? batchCost(request.batch) : { rows: request.threads.length, bytes: 160 * request.threads.length };

const failure = (seq: number, err: unknown): WriterReply => {
  const e = err as { message?: string; code?: string };
  return { seq, ok: false, message: e.message ?? String(err), code: e.code };
};

/** One request; inside the group's transaction its own transaction is a savepoint. */
function run(request: WriterRequest): WriterReply {
  try {
    return { seq: request.seq, ok: true, result: request.op === 'batch' ? write(request.batch) : defaultThreads(request.threads) };
  } catch (err) {
    return failure(request.seq, err);
  }
}

function commitGroup(group: WriterRequest[]): WriterReply[] {
  if (group.length === 1) return [run(group[0]!)];
  connection.exec('BEGIN');
  try {
    const replies = group.map(run);
    connection.exec('COMMIT');
    return replies;
  } catch (err) {
    // COMMIT failed (disk full, I/O error): nothing of the group is stored.
    if (connection.inTransaction) connection.exec('ROLLBACK');
    return group.map((request) => failure(request.seq, err));
  }
}

port.on('message', (first: WriterRequest) => {
  const group = [first];
  const cost = costOf(first);
  // Everything posted while the last commit ran is already waiting on the port.
  while (cost.rows < settings.groupRows && cost.bytes < settings.groupBytes) {
    const next = receiveMessageOnPort(port);
    if (!next) break;
    const request = next.message as WriterRequest;
    group.push(request);
    const c = costOf(request);
    cost.rows += c.rows;
    cost.bytes += c.bytes;
  }
  port.postMessage(commitGroup(group));
  rowsSinceCheckpoint += cost.rows;
  if (rowsSinceCheckpoint >= settings.checkpointRows) {
    rowsSinceCheckpoint = 0;
    // PASSIVE: never waits for readers; what it cannot copy now, a later checkpoint does.
    connection.pragma('wal_checkpoint(PASSIVE)');
  }
});
