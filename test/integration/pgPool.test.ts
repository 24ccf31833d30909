// The PostgreSQL pool wrapper on a real server: a connection the server ends while it is checked
// out (between two queries) raises no uncaught error, fails what is asked of it at once, and is
// discarded on release; a server that went silent costs bounded waits (connect, reply), and a
// connection that timed out is never handed out again. Counts follow. A statement waiting on a server
// that stopped answering fails once a new connection cannot reach it either, long before the reply
// limit; a slow statement on a server that answers is left to finish.
import { Writable } from 'node:stream';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createPgPool, PG_APPLICATION_NAME, type PgPool } from '../../src/store/pgPool.js';
import { StoreUnavailableError } from '../../src/store/errors.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcpProxy.js';

/** A logger whose lines a test can wait for. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ msg: string; resolve: (line: Record<string, unknown>) => void }> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (!text) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        lines.push(line);
        for (const w of waiters.splice(0))
          if (line['msg'] === w.msg) w.resolve(line);
          else waiters.push(w);
      }
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, sink),
    lines,
    next: (msg: string) => new Promise<Record<string, unknown>>((resolve) => waiters.push({ msg, resolve })),
  };
}

const FAILED = 'a PostgreSQL connection failed: it is discarded, the next query opens a new one';

describe.skipIf(!inject('pgUrl'))('PostgreSQL pool', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let pool: PgPool | undefined;
  let proxy: TcpProxy | undefined;

  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    admin = new pg.Client({ connectionString: inject('pgUrl')! });
    await admin.connect();
  });
  afterEach(async () => {
    await proxy?.restore();
    await pool?.end().catch(() => undefined);
    await proxy?.close();
    await admin.end();
    await database.drop();
    pool = undefined;
    proxy = undefined;
  });

  it('discards a connection the server ended while it was checked out, between two queries', async () => {
    const log = capturingLogger();
    pool = createPgPool({ url: database.env['DATABASE_URL']! }, log.logger);
    const client = await pool.connect();
    const { rows } = await client.query<{ pid: number; app: string }>('SELECT pg_backend_pid() AS pid, current_setting($1) AS app', ['application_name']);
    expect(rows[0]!.app).toBe(PG_APPLICATION_NAME);
    expect(pool.counts()).toEqual({ total: 1, idle: 0, waiting: 0 });

    const failed = log.next(FAILED);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
    // pg emits 'error' on the checked-out client: without a listener the process would die here.
    expect(String((await failed)['err'])).toMatch(/terminat/i);

    const started = performance.now();
    await expect(client.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(100);
    client.release();
    expect(pool.counts()).toEqual({ total: 0, idle: 0, waiting: 0 });

    // The next query opens a new connection; it goes back to the pool as idle.
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(pool.counts()).toEqual({ total: 1, idle: 1, waiting: 0 });
  });

  it('keeps a connection whose statement failed on the server (a SQL error), and counts callers waiting', async () => {
    pool = createPgPool({ url: database.env['DATABASE_URL']!, max: 1, timeouts: { connectMs: 300 } }, pino({ enabled: false }));
    const client = await pool.connect();
    await expect(client.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' });
    expect((await client.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);

    // The only connection is checked out: a second caller waits, then gives up after DB_CONNECT_TIMEOUT.
    const started = performance.now();
    const waiting = pool.connect();
    expect(pool.counts()).toEqual({ total: 1, idle: 0, waiting: 1 });
    await expect(waiting).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(2_000);
    client.release();
    expect(pool.counts()).toEqual({ total: 1, idle: 1, waiting: 0 });
  });

  it('gives up on a silent server within the reply and connect limits, and never reuses a connection that timed out', async () => {
    const upstream = new URL(inject('pgUrl')!);
    proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const log = capturingLogger();
    pool = createPgPool({ url: proxy.via(database.env['DATABASE_URL']!), timeouts: { connectMs: 500, statementMs: 400, queryMs: 800 } }, log.logger);
    await pool.query('SELECT 1');
    expect(pool.counts()).toMatchObject({ total: 1, idle: 1 });

    proxy.blackhole();
    let started = performance.now();
    await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(log.lines.some((l) => l['msg'] === FAILED && /timeout/i.test(String(l['err'])))).toBe(true);
    expect(pool.counts()).toEqual({ total: 0, idle: 0, waiting: 0 });

    // A new connection gets no answer either: refused after the connect limit.
    started = performance.now();
    await expect(pool.query('SELECT 1')).rejects.toThrow(/could not get a PostgreSQL connection/);
    expect(performance.now() - started).toBeLessThan(3_000);

    await proxy.restore();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('once a connection has failed, hands out no idle one that had no answer since: a new one is tried instead', async () => {
    const upstream = new URL(inject('pgUrl')!);
    proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    pool = createPgPool(
      { url: proxy.via(database.env['DATABASE_URL']!), timeouts: { connectMs: 300, statementMs: 1_500, queryMs: 2_000 } },
      pino({ enabled: false }),
    );
    // Three connections, idle now.
    const held = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    for (const c of held) c.release();
    expect(pool.counts()).toMatchObject({ total: 3, idle: 3 });

    proxy.blackhole();
    // The first query finds its connection silent only after the reply limit.
    await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    // The next ones do not wait on the idle connections that went silent with it: a new connection is
    // tried and refused after the connect limit, well within the reply limit.
    const started = performance.now();
    await expect(pool.query('SELECT 1')).rejects.toThrow(/could not get a PostgreSQL connection/);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(pool.counts()).toEqual({ total: 0, idle: 0, waiting: 0 });

    await proxy.restore();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('fails a statement waiting on a server that stopped answering once a new connection gets no answer either, long before the reply limit', async () => {
    const upstream = new URL(inject('pgUrl')!);
    proxy = await startTcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    const log = capturingLogger();
    pool = createPgPool({ url: proxy.via(database.env['DATABASE_URL']!), timeouts: { connectMs: 500, statementMs: 15_000, queryMs: 20_000 } }, log.logger);
    await pool.query('SELECT 1');

    // A slow statement on a server that answers: the check's new connection gets its answer, the statement finishes.
    expect((await pool.query<{ done: string }>('SELECT pg_sleep(2.2)::text AS done')).rows).toHaveLength(1);
    expect(log.lines.filter((l) => String(l['msg']).startsWith('PostgreSQL stopped answering'))).toEqual([]);

    proxy.blackhole();
    const started = performance.now();
    const stopped = log.next('PostgreSQL stopped answering (a new connection could not reach it either): the statements waiting for it fail now');
    await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(StoreUnavailableError);
    // Silence noticed after 1 s, the new connection refused after 0.5 s: before this, 20 s (the reply limit).
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(await stopped).toMatchObject({ statements: 1 });
    expect(pool.counts()).toEqual({ total: 0, idle: 0, waiting: 0 });

    await proxy.restore();
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
