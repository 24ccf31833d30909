// The SQLite checkpointer's thread: copies the WAL into the database file on its own connection,
// beside the writer. In the writer's thread a checkpoint held every commit behind it: at 10,000
// rows/s one ran each second and took 60 ms at the median and 200 ms at worst, which set the
// acknowledgements' p99. A PASSIVE checkpoint takes no lock a writer waits for, so commits go on.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { openSqliteConnection, type SqliteSynchronous } from './sqliteConnection.js';

export interface CheckpointThreadSettings {
  path: string;
  synchronous: SqliteSynchronous;
  /** The writer's side of the channel: asks for checkpoints and hears when each is done. */
  writer: MessagePort;
}

/** What the thread answers each request with (SQLite's own figures, in WAL frames). */
export interface CheckpointDone {
  log: number;
  checkpointed: number;
  ms: number;
}

const settings = workerData as CheckpointThreadSettings;
const connection = openSqliteConnection(settings.path, { synchronous: settings.synchronous });
const port = settings.writer;

port.on('message', () => {
  const started = performance.now();
  // PASSIVE: never waits for the writer or for readers; what it cannot copy now, the next one does.
  const [row] = connection.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number; checkpointed: number }>;
  const done: CheckpointDone = { log: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0, ms: performance.now() - started };
  port.postMessage(done);
  parentPort?.postMessage(done);
});
// The parent only ever terminates this thread; the port keeps it alive until then.
parentPort?.unref();
