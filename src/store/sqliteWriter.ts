// The main thread's side of the SQLite writer thread: posts each batch and resolves with its
// result, in order. Runs the thread from TypeScript sources under tsx (development, tests) and from
// the compiled file otherwise.
import { MessageChannel } from 'node:worker_threads';
import type { BatchWriter, DefaultThreadsWriter, MessagePruner } from './batchWriter.js';
import type { CheckpointDone, CheckpointThreadSettings } from './sqliteCheckpointThread.js';
import type { SqliteSynchronous } from './sqliteConnection.js';
import { startThread, type StoreThread } from './threadEntry.js';
import type { WriterReply, WriterRequest, WriterThreadSettings } from './sqliteWriterThread.js';

export interface SqliteWriter {
  write: BatchWriter;
  /** Default conversation threads, made in the writer's order (after the batches posted before). */
  defaultThreads: DefaultThreadsWriter;
  /** Retention: deletes expired rows inside the writer's next group commit (no lock against it). */
  prune: MessagePruner;
  /** Waits for batches in flight, then stops the thread. */
  close(): Promise<void>;
}

export interface SqliteWriterOptions {
  synchronous?: SqliteSynchronous;
  /**
   * Bounds of one transaction, over the batches posted while the one before committed. 0 rows: one
   * transaction per batch (the writer before group commit, kept for the writer benchmark).
   */
  groupRows?: number;
  groupBytes?: number;
  checkpointRows?: number;
  /** Where checkpoints run: in a thread of their own beside the writer (default), or in the writer between commits. */
  checkpoints?: 'beside' | 'inline';
  /** How long a write waits for another connection's lock before the group fails (default 5,000 ms). */
  busyTimeoutMs?: number;
  /** Each checkpoint the checkpointer thread finished. */
  onCheckpoint?: (done: CheckpointDone) => void;
}

/** A commit of 20,000 rows took about 0.3 s of the writer's CPU here; bigger groups only add latency. */
export const SQLITE_GROUP_ROWS = 20_000;
export const SQLITE_GROUP_BYTES = 16 * 1024 * 1024;

export function startSqliteWriter(path: string, options: SqliteWriterOptions = {}): SqliteWriter {
  const settings: WriterThreadSettings = {
    path,
    synchronous: options.synchronous ?? 'full',
    groupRows: options.groupRows ?? SQLITE_GROUP_ROWS,
    groupBytes: options.groupBytes ?? SQLITE_GROUP_BYTES,
    checkpointRows: options.checkpointRows ?? 10_000,
    busyTimeoutMs: options.busyTimeoutMs,
  };
  const pending = new Map<number, { resolve(result: never): void; reject(err: Error): void }>();
  let seq = 0;
  let writer: StoreThread | undefined;
  let closing: Promise<void> | undefined;
  let idleWaiters: Array<() => void> = [];

  const settled = () => {
    if (pending.size > 0) return;
    // Idle, the thread must not keep the process alive; with batches in flight it must.
    writer?.worker.unref();
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    settled();
  };

  let checkpointer: StoreThread | undefined;
  /** The checkpointer of this writer thread, linked to it by a channel of their own. */
  const spawnCheckpointer = () => {
    if (options.checkpoints === 'inline') return undefined;
    const { port1, port2 } = new MessageChannel();
    const data: CheckpointThreadSettings = { path, synchronous: settings.synchronous, writer: port2 };
    checkpointer = startThread('sqliteCheckpointThread', data, [port2]);
    const w = checkpointer.worker;
    w.unref();
    if (options.onCheckpoint) w.on('message', options.onCheckpoint);
    // A checkpointer that fails leaves the WAL to grow until the writer's next start; the writer goes on.
    w.on('error', () => undefined);
    return port1;
  };

  const spawn = (): StoreThread => {
    void checkpointer?.stop();
    const link = spawnCheckpointer();
    const thread = startThread('sqliteWriterThread', { ...settings, checkpointer: link } satisfies WriterThreadSettings, link ? [link] : []);
    const w = thread.worker;
    // One message per group commit: the replies of its batches, in posting order.
    w.on('message', (replies: WriterReply[]) => {
      for (const reply of replies) {
        const p = pending.get(reply.seq);
        if (!p) continue;
        pending.delete(reply.seq);
        if (reply.ok) p.resolve(reply.result as never);
        else p.reject(Object.assign(new Error(reply.message), { code: reply.code }));
      }
      settled();
    });
    // A thread that dies takes its batches with it (they were not committed); the next batch starts a new one.
    w.on('error', (err) => failAll(err));
    w.on('exit', (code) => {
      if (writer === thread) writer = undefined;
      if (pending.size > 0) failAll(new Error(`the SQLite writer thread exited (${code})`));
    });
    return thread;
  };

  // Started now, not on the first batch: loading the thread takes a moment the first message should not wait for.
  writer = spawn();
  writer.worker.unref();

  function post<R>(request: (seq: number) => WriterRequest): Promise<R> {
    if (closing) return Promise.reject(new Error('the store is closed'));
    const thread = (writer ??= spawn());
    thread.worker.ref();
    const id = ++seq;
    return new Promise<R>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (result: never) => void, reject });
      thread.worker.postMessage(request(id));
    });
  }

  return {
    write: (batch) => post((id) => ({ seq: id, op: 'batch', batch })),
    defaultThreads: (threads) => post((id) => ({ seq: id, op: 'threads', threads })),
    prune: (prune) => post((id) => ({ seq: id, op: 'prune', prune })),
    close() {
      closing ??= (async () => {
        if (pending.size > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
        await Promise.all([writer?.stop(), checkpointer?.stop()]);
        writer = undefined;
        checkpointer = undefined;
      })();
      return closing;
    },
  };
}
