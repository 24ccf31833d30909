// A SQLite reader thread: one read-only connection to the hub's database file (WAL, so it reads a
// snapshot beside the writer without blocking it), answering one query at a time for the main
// thread's reader pool (sqliteReaders.ts). The thread runs at a lower CPU priority than the event
// loop and the writer thread: on a busy machine a long read waits, the acknowledgements do not.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';

export interface ReaderThreadSettings {
  path: string;
}

export interface ReaderRequest {
  seq: number;
  sql: string;
  parameters: readonly unknown[];
}

export type ReaderReply = { seq: number; ok: true; rows: unknown[] } | { seq: number; ok: false; message: string; code?: string };

/** Nice 10: a tenth of the CPU weight of a normal thread when both want a core (Linux CFS). */
const READER_NICE = 10;

/** Linux keeps a nice value per thread; elsewhere `/proc/thread-self` is missing and the thread keeps the process's. */
function lowerPriority(): void {
  let tid: number;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  if (Number.isInteger(tid) && tid > 0) setPriority(tid, READER_NICE);
}

const settings = workerData as ReaderThreadSettings;
lowerPriority();
const connection = new BetterSqlite3(settings.path, { readonly: true, fileMustExist: true });
connection.pragma('busy_timeout = 5000');
const statements = new Map<string, BetterSqlite3.Statement>();
const port = parentPort!;

function run(request: ReaderRequest): unknown[] {
  let statement = statements.get(request.sql);
  if (!statement) {
    statement = connection.prepare(request.sql);
    if (statements.size >= 200) statements.delete(statements.keys().next().value!);
    statements.set(request.sql, statement);
  }
  return statement.all(...(request.parameters as unknown[]));
}

port.on('message', (request: ReaderRequest) => {
  let reply: ReaderReply;
  try {
    reply = { seq: request.seq, ok: true, rows: run(request) };
  } catch (err) {
    const e = err as { message?: string; code?: string };
    reply = { seq: request.seq, ok: false, message: e.message ?? String(err), code: e.code };
  }
  port.postMessage(reply);
});
