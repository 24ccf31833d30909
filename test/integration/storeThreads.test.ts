// The SQLite store's worker threads (writer, checkpointer, readers) stopped at any moment of their start.
// A thread terminated while better-sqlite3's native module registered itself took the whole process
// down (`FATAL ERROR: Error::New napi_get_last_error_info`): a hub stopped right after it started, or a
// reader replaced while it loaded. A crash here fails the test file (the vitest worker dies).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteConnection } from '../../src/store/sqliteConnection.js';
import { startReaderPool } from '../../src/store/sqliteReaders.js';
import { startSqliteWriter } from '../../src/store/sqliteWriter.js';
import { startThread } from '../../src/store/threadEntry.js';

const SLOW_READ = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT count(*) AS n FROM c';

describe("the SQLite store's threads", () => {
  let dir: string;
  let path: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-threads-'));
    path = join(dir, 'hub.db');
    openSqliteConnection(path).close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are stopped only once their module has loaded, however soon after their start', async () => {
    for (const name of ['sqliteReaderThread', 'sqliteWriterThread', 'sqliteCheckpointThread']) {
      const { port1, port2 } = new MessageChannel();
      const data =
        name === 'sqliteCheckpointThread'
          ? { path, synchronous: 'full', writer: port2 }
          : { path, synchronous: 'full', groupRows: 1, groupBytes: 1, checkpointRows: 1 };
      const thread = startThread(name, data, name === 'sqliteCheckpointThread' ? [port2] : []);
      await thread.stop();
      // Before, the stop terminated it at once, in the middle of loading better-sqlite3: `ended`.
      expect(await thread.loaded, name).toBe('loaded');
      port1.close();
    }
  });

  it('can be stopped at any moment of their start, the process surviving every time', async () => {
    // Ten threads start in each round (the writer, its checkpointer, eight readers), all loading at once;
    // the stops sweep the time that takes here (the addon's registration is somewhere inside), and past it.
    const began = performance.now();
    const probes = Array.from({ length: 10 }, () => startThread('sqliteReaderThread', { path }));
    await Promise.all(probes.map((t) => t.loaded));
    const loadMs = performance.now() - began;
    await Promise.all(probes.map((t) => t.stop()));

    const rounds = 30;
    for (let i = 0; i < rounds; i++) {
      const writer = startSqliteWriter(path);
      const readers = startReaderPool(path, { poolSize: 8, timeoutMs: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, (i / rounds) * loadMs * 1.5));
      await Promise.all([writer.close(), readers.close()]);
    }
    // Still here, and the file still opens and answers.
    const connection = openSqliteConnection(path);
    expect(connection.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
    connection.close();
  }, 60_000);

  it('fails a read whose deadline passes while it waits, and serves the next one on the thread that kept loading', async () => {
    const readers = startReaderPool(path, { poolSize: 1, timeoutMs: 100 });
    try {
      // The slow read runs past its deadline: its thread is replaced; the reads queued behind it wait
      // for the replacement to load, and those whose deadline passes meanwhile fail on their own.
      const outcomes = await Promise.allSettled([readers.query(SLOW_READ, []), ...Array.from({ length: 5 }, () => readers.query('SELECT 1 AS one', []))]);
      expect(outcomes[0]!.status).toBe('rejected');
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(String(outcome.reason)).toMatch(/DB_READ_TIMEOUT/);
      // The replacement was not stopped for them: once loaded it answers within the deadline.
      let answer: unknown[] | undefined;
      for (let attempt = 0; attempt < 50 && !answer; attempt++) answer = await readers.query('SELECT 1 AS one', []).catch(() => undefined);
      expect(answer).toEqual([{ one: 1 }]);
    } finally {
      await readers.close();
    }
  });

  it('fails the reads waiting for a thread that cannot open the file with why, at once, without starting threads in a loop', async () => {
    const readers = startReaderPool(join(dir, 'missing.db'), { poolSize: 2, timeoutMs: 10_000 });
    try {
      const began = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => readers.query('SELECT 1', [])));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        expect(String((outcome as PromiseRejectedResult).reason)).toMatch(/unable to open|does not exist|SQLITE_CANTOPEN/i);
      }
      expect(performance.now() - began).toBeLessThan(5_000);
    } finally {
      await readers.close();
    }
  });
});
