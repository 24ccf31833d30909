// The SQLite group-commit writer's thread: its own connection to the hub's database file. Every
// batch the main thread posted while the previous commit waited for the disk goes into the next
// transaction together (up to a bound in rows and bytes), so the slower the fsync, the more rows
// each one carries. No savepoint per batch (they copied every page a batch touched, which cost as
// much as the grouping saved): when a batch fails, the group is rolled back and each batch runs
// again alone, so only that one is refused. Replies go out after COMMIT returned, so with
// `synchronous=FULL` an answer still means "on disk".
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import {
  batchCost,
  sqliteBatchStatements,
  sqliteDefaultThreads,
  sqlitePruneMessages,
  type BatchResult,
  type DefaultThreadRequest,
  type PruneRequest,
  type PruneResult,
  type WriteBatch,
} from './batchWriter.js';
import type { CheckpointDone } from './sqliteCheckpointThread.js';
import { openSqliteConnection, type SqliteSynchronous } from './sqliteConnection.js';

export type WriterRequest =
  | { seq: number; op: 'batch'; batch: WriteBatch }
  | { seq: number; op: 'threads'; threads: DefaultThreadRequest[] }
  | { seq: number; op: 'prune'; prune: PruneRequest };

export type WriterReply = { seq: number; ok: true; result: BatchResult | number[] | PruneResult } | { seq: number; ok: false; message: string; code?: string };

export interface WriterThreadSettings {
  path: string;
  synchronous: SqliteSynchronous;
  /** One transaction takes posted batches up to these bounds (0 rows: one transaction per batch). */
  groupRows: number;
  groupBytes: number;
  /** Rows committed between two checkpoints. */
  checkpointRows: number;
  /** How long a write waits for another connection's lock (tests shorten it). */
  busyTimeoutMs?: number;
  /** The checkpointer thread (sqliteCheckpointThread.ts); without it, checkpoints run here after the replies. */
  checkpointer?: MessagePort;
}

const settings = workerData as WriterThreadSettings;
const connection = openSqliteConnection(settings.path, { synchronous: settings.synchronous, busyTimeoutMs: settings.busyTimeoutMs });
const write = sqliteBatchStatements(connection);
const defaultThreads = sqliteDefaultThreads(connection);
const prune = sqlitePruneMessages(connection);
const port = parentPort!;
let rowsSinceCheckpoint = 0;
let lastCheckpoint = Date.now();
let checkpointing = false;
const QUIET_CHECKPOINT_MS = 30_000;

const costOf = (request: WriterRequest) => {
  if (request.op === 'batch') return batchCost(request.batch);
  const rows = request.op === 'threads' ? request.threads.length : request.prune.limit * request.prune.types.length;
  return { rows, bytes: 160 * rows };
};

function perform(request: WriterRequest): BatchResult | number[] | PruneResult {
  if (request.op === 'batch') return write(request.batch);
  if (request.op === 'threads') return defaultThreads(request.threads);
  return prune(request.prune);
}

const failure = (seq: number, err: unknown): WriterReply => {
  const e = err as { message?: string; code?: string };
  return { seq, ok: false, message: e.message ?? String(err), code: e.code };
};

const begin = connection.prepare('BEGIN');
const commit = connection.prepare('COMMIT');
const rollback = connection.prepare('ROLLBACK');

/** Runs `fn` in one transaction; throws what failed (after rolling back). */
function inTransaction<T>(fn: () => T): T {
  begin.run();
  try {
    const result = fn();
    commit.run();
    return result;
  } catch (err) {
    if (connection.inTransaction) rollback.run();
    throw err;
  }
}

const isBusy = (err: unknown) => String((err as { code?: unknown } | null)?.code ?? '').startsWith('SQLITE_BUSY');

function alone(request: WriterRequest): WriterReply {
  try {
    return { seq: request.seq, ok: true, result: inTransaction(() => perform(request)) };
  } catch (err) {
    return failure(request.seq, err);
  }
}

function commitGroup(group: WriterRequest[]): WriterReply[] {
  if (group.length === 1) return [alone(group[0]!)];
  try {
    const results = inTransaction(() => group.map(perform));
    return group.map((request, i): WriterReply => ({ seq: request.seq, ok: true, result: results[i]! }));
  } catch (err) {
    // Another connection holds the lock (for longer than the busy timeout): every batch alone would
    // wait that long again and fail the same way, so the whole group is refused at once.
    if (isBusy(err)) return group.map((request) => failure(request.seq, err));
    // Which batch failed, and whether the others can go in, only running them one by one tells.
    return group.map(alone);
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
  afterCommit(cost.rows);
});

function afterCommit(rows: number): void {
  rowsSinceCheckpoint += rows;
  const checkpointer = settings.checkpointer;
  if (checkpointing) {
    const done = receiveMessageOnPort(checkpointer!);
    if (!done) return;
    checkpointing = false;
    // What was committed while it ran is left to copy (a few commits' pages). Copied here, between two
    // commits, the whole WAL is in the file, so the next commit starts the WAL again from its top;
    // otherwise it would grow for as long as commits keep coming.
    const { log, checkpointed } = done.message as CheckpointDone;
    if (checkpointed === log) connection.pragma('wal_checkpoint(PASSIVE)');
  }
  // Also after a quiet spell, so a hub with little traffic does not keep a long WAL for readers to search.
  if (rowsSinceCheckpoint < settings.checkpointRows && Date.now() - lastCheckpoint < QUIET_CHECKPOINT_MS) return;
  rowsSinceCheckpoint = 0;
  lastCheckpoint = Date.now();
  if (checkpointer) {
    checkpointing = true;
    checkpointer.postMessage('checkpoint');
  } else {
    // PASSIVE: never waits for readers; what it cannot copy now, a later checkpoint does.
    connection.pragma('wal_checkpoint(PASSIVE)');
  }
}
