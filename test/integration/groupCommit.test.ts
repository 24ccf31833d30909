// The store's group-commit writers on real SQLite and PostgreSQL, and PostgreSQL's cluster-mode writer
// (one statement per batch, in the commit order of every node): batches handed over together come
// back in posting order with ids in that order, a batch that fails is refused alone, and the
// SQLite writer's durability setting is the one configured.
import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DbConfig } from '../../src/config.js';
import type { MessageInsert, OrderedCommits, WriteBatch } from '../../src/store/batchWriter.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { startSqliteWriter } from '../../src/store/sqliteWriter.js';
import { createTestDatabase, describeEachDriver, type Driver, type TestDatabase } from '../helpers/db.js';

function dbConfig(database: TestDatabase): DbConfig {
  return database.env.DB_DRIVER === 'sqlite' ? { driver: 'sqlite', path: database.env.DB_PATH! } : { driver: 'postgres', url: database.env.DATABASE_URL! };
}

const message = (n: number, overrides: Partial<MessageInsert> = {}): MessageInsert => ({
  type: 'SYSTEM_LOG',
  sender_id: 7,
  sender_name: 'agent-7',
  sender_role: 'AGENT',
  target_id: null,
  target_role: null,
  payload: JSON.stringify({ level: 'INFO', content: `report ${n}` }),
  level: 'INFO',
  content: `report ${n}`,
  local_id: `r${n}`,
  conversation_id: null,
  stream_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  ...overrides,
});

const batchOf = (...messages: MessageInsert[]): WriteBatch => ({ messages, presence: [], threads: [] });

describeEachDriver('group commit', (driver) => groupCommit(driver));
describe.skipIf(!inject('pgUrl'))('group commit [postgres, cluster commit order]', () => groupCommit('postgres', 'statement'));

function groupCommit(driver: Driver, ordered?: OrderedCommits): void {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase(driver);
    store = openStore(dbConfig(database), { orderedCommits: ordered });
    await migrate(store);
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  const storedContents = async () => (await store.db.selectFrom('messages').select(['id', 'content']).orderBy('id').execute()).map((r) => r.content);

  it('commits batches handed over together in posting order, ids following it', async () => {
    const batches = Array.from({ length: 40 }, (_, b) => batchOf(...Array.from({ length: 25 }, (_, i) => message(b * 25 + i))));
    const results = await Promise.all(batches.map((batch) => store.writeBatch(batch)));
    const ids = results.flatMap((r) => r.messages.map((m) => m.id));
    expect(ids).toHaveLength(1000);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(1000);
    expect(await storedContents()).toEqual(Array.from({ length: 1000 }, (_, n) => `report ${n}`));
  });

  it('refuses only the batch that fails; those around it are stored', async () => {
    // A big batch first, so the next ones wait for its commit and are grouped behind it.
    const [big, before, broken, after] = await Promise.allSettled([
      store.writeBatch(batchOf(...Array.from({ length: 2000 }, (_, n) => message(1000 + n)))),
      store.writeBatch(batchOf(message(1))),
      store.writeBatch(batchOf(message(2), message(3, { content: null as unknown as string }))),
      store.writeBatch(batchOf(message(4))),
    ]);
    expect(big.status).toBe('fulfilled');
    expect(before).toMatchObject({ status: 'fulfilled', value: { messages: [{ duplicate: false }] } });
    expect(broken).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/null/i) }) });
    expect(after).toMatchObject({ status: 'fulfilled', value: { messages: [{ duplicate: false }] } });
    const contents = await storedContents();
    expect(contents).toHaveLength(2002);
    expect(contents.slice(-2)).toEqual(['report 1', 'report 4']);
  });

  it('keeps a repeated local_id once across batches committed together', async () => {
    const [first, second] = await Promise.all([store.writeBatch(batchOf(message(1))), store.writeBatch(batchOf(message(1, { content: 'again' })))]);
    expect(second!.messages[0]).toMatchObject({ id: first!.messages[0]!.id, duplicate: true });
    expect(await storedContents()).toEqual(['report 1']);
  });

  it('applies presence changes of one user from batches in flight together in order', async () => {
    const user = await store.db
      .insertInto('users')
      .values({ username: 'pat', role: 'AGENT', actor_type: 'SYSTEM', status: 'idle', online: 0, created_at: 'now', updated_at: 'now' } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    const writes = ['a', 'b', 'c', 'd'].map((status) =>
      store.writeBatch({ messages: [message(status.charCodeAt(0))], presence: [{ userId: user.id, patch: { status }, at: 'now' }], threads: [] }),
    );
    const results = await Promise.all(writes);
    expect(results.map((r) => r.presence[0]?.status)).toEqual(['a', 'b', 'c', 'd']);
    const row = await store.db.selectFrom('users').select('status').where('id', '=', user.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('d');
  });

  const agent = (username: string) =>
    store.db
      .insertInto('users')
      .values({ username, role: 'AGENT', actor_type: 'SYSTEM', status: 'OFFLINE', online: 0, created_at: 'now', updated_at: 'now' } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
      .then((r) => r.id);

  it("stores a batch's presence changes of many users, one user twice, and answers them in the batch's order", async () => {
    const [a, b] = [await agent('a'), await agent('b')];
    const result = await store.writeBatch({
      messages: [],
      presence: [
        { userId: b, patch: { status: 'ONLINE', online: 1 }, at: 't1' },
        { userId: a, patch: { status: 'ONLINE', online: 1, last_report: 'websocket_connected' }, at: 't1' },
        { userId: 99_999, patch: { status: 'ONLINE', online: 1 }, at: 't1' },
        { userId: b, patch: { status: 'OFFLINE', online: 0 }, at: 't2' },
      ],
      threads: [],
    });
    expect(result.presence.map((r) => [r.id, r.status, r.online])).toEqual([
      [b, 'ONLINE', 1],
      [a, 'ONLINE', 1],
      [b, 'OFFLINE', 0],
    ]);
    const rows = await store.db.selectFrom('users').select(['id', 'status', 'last_report', 'updated_at']).where('id', 'in', [a, b]).orderBy('id').execute();
    expect(rows).toEqual([
      { id: a, status: 'ONLINE', last_report: 'websocket_connected', updated_at: 't1' },
      { id: b, status: 'OFFLINE', last_report: null, updated_at: 't2' },
    ]);
  });

  it('touches each conversation thread once, at its latest time in the batch', async () => {
    const [owner, peer] = [await agent('owner'), await agent('peer')];
    const thread = await store.db
      .insertInto('conversation_threads')
      .values({
        owner_user_id: owner,
        peer_user_id: peer,
        channel_kind: 'agent_direct',
        title: 't',
        is_default: 1,
        created_at: 'now',
        updated_at: 'now',
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    await store.writeBatch({
      messages: [message(1)],
      presence: [],
      threads: [
        { id: thread.id, at: '2026-01-01T00:00:02.000Z' },
        { id: thread.id, at: '2026-01-01T00:00:03.000Z' },
      ],
    });
    const row = await store.db.selectFrom('conversation_threads').select('last_message_at').where('id', '=', thread.id).executeTakeFirstOrThrow();
    expect(row.last_message_at).toBe('2026-01-01T00:00:03.000Z');
  });

  it('makes default threads once: repeats and threads made before get the same id, and two stores making overlapping sets at once agree', async () => {
    const humans = [await agent('h1'), await agent('h2')];
    const machines = await Promise.all(Array.from({ length: 30 }, (_, i) => agent(`m${i}`)));
    const request = (owner: number, peer: number) => ({ ownerId: owner, peerId: peer, kind: 'agent_direct', title: `t${peer}`, at: 'now' });
    const first = await store.ensureDefaultThreads([request(humans[0]!, machines[0]!)]);
    const everyPair = humans.flatMap((h) => machines.map((m) => request(h, m)));
    const other = openStore(dbConfig(database), { orderedCommits: ordered });
    try {
      // The same 60 threads asked of two stores at once, in opposite orders (two nodes of a cluster).
      const [a, b] = await Promise.all([store.ensureDefaultThreads(everyPair), other.ensureDefaultThreads([...everyPair].reverse())]);
      expect(b.reverse()).toEqual(a);
      expect(a[0]).toBe(first[0]);
      expect(new Set(a).size).toBe(60);
    } finally {
      await other.close();
    }
    const rows = await store.db
      .selectFrom('conversation_threads')
      .select((e) => e.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(60);
  });

  if (driver === 'postgres') {
    it('applies an ordered presence change (cluster mode) only over an older one, in the same statement as unordered ones', async () => {
      const [a, b, c] = [await agent('a'), await agent('b'), await agent('c')];
      await store.db
        .updateTable('users')
        .set({ presence_seq: 100 } as never)
        .where('id', '=', a)
        .execute();
      const result = await store.writeBatch({
        messages: [],
        presence: [
          { userId: a, patch: { status: 'ONLINE', seq: 50 }, at: 't' },
          { userId: b, patch: { status: 'ONLINE', seq: 10 }, at: 't' },
          { userId: c, patch: { status: 'ONLINE' }, at: 't' },
          { userId: b, patch: { status: 'OFFLINE', seq: 20 }, at: 't' },
          { userId: b, patch: { status: 'ONLINE', seq: 15 }, at: 't' },
        ],
        threads: [],
      });
      expect(result.presence.map((r) => [r.id, r.status])).toEqual([
        [b, 'ONLINE'],
        [c, 'ONLINE'],
        [b, 'OFFLINE'],
      ]);
      const rows = await store.db.selectFrom('users').select(['id', 'status', 'presence_seq']).where('id', 'in', [a, b, c]).orderBy('id').execute();
      expect(rows.map((r) => [r.id, r.status, Number(r.presence_seq)])).toEqual([
        [a, 'OFFLINE', 100],
        [b, 'OFFLINE', 20],
        [c, 'ONLINE', 0],
      ]);
    });
  }

  if (ordered) {
    const orderRow = async () =>
      Number((await sql<{ last_id: string }>`SELECT last_id FROM cluster_commit_order WHERE id = 1`.execute(store.db)).rows[0]!.last_id);

    it('marks each batch in the commit order (every id up to prev final, its own ids up to last), and moves the order row with it', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, b) => store.writeBatch(batchOf(message(b * 2), message(b * 2 + 1, { local_id: null })))),
      );
      let before = 0;
      for (const result of results) {
        expect(result.order).toEqual({ prev: before, last: Math.max(...result.messages.map((m) => m.id)) });
        before = result.order!.last;
      }
      expect(await orderRow()).toBe(before);

      // Repeats and new rows together: the repeats answer with the stored row; the order moves past the new ones only.
      const first = results[0]!.messages[0]!;
      const mixed = await store.writeBatch(batchOf(message(0, { content: 'again' }), message(50), message(51, { local_id: null })));
      expect(mixed.messages[0]).toEqual({ id: first.id, created_at: message(0).created_at, conversation_id: null, duplicate: true });
      expect(mixed.messages.slice(1).map((m) => m.duplicate)).toEqual([false, false]);
      expect(mixed.order).toEqual({ prev: before, last: mixed.messages[2]!.id });
      const repeatOnly = await store.writeBatch(batchOf(message(50)));
      expect(repeatOnly.order).toEqual({ prev: mixed.order!.last, last: mixed.order!.last });
      expect(await orderRow()).toBe(mixed.order!.last);
    });
  }

  if (driver === 'sqlite') {
    it('refuses a whole group at once while another connection holds the write lock, instead of waiting again for each batch', async () => {
      const BUSY_MS = 300;
      const writer = startSqliteWriter(database.env.DB_PATH!, { busyTimeoutMs: BUSY_MS });
      // The thread is up (its start is not what this measures).
      await writer.write(batchOf(message(100)));
      const locker = new BetterSqlite3(database.env.DB_PATH!);
      locker.exec('BEGIN IMMEDIATE');
      try {
        const t0 = performance.now();
        const outcomes = await Promise.all(
          [0, 1, 2, 3].map((n) =>
            writer.write(batchOf(message(n))).then(
              () => ({ code: 'committed', at: performance.now() - t0 }),
              (err: { code?: string }) => ({ code: err.code, at: performance.now() - t0 }),
            ),
          ),
        );
        expect(outcomes.map((o) => o.code)).toEqual(['SQLITE_BUSY', 'SQLITE_BUSY', 'SQLITE_BUSY', 'SQLITE_BUSY']);
        // Grouped as one, or as [1] then [2, 3, 4]: each group waits for the lock once (not once more per batch).
        expect(Math.max(...outcomes.map((o) => o.at))).toBeLessThan(3 * BUSY_MS);
        locker.exec('ROLLBACK');
        expect((await writer.write(batchOf(message(9)))).messages).toHaveLength(1);
      } finally {
        if (locker.inTransaction) locker.exec('ROLLBACK');
        locker.close();
        await writer.close();
      }
    });

    it('checkpoints the WAL in a thread beside the writer, and the WAL starts again from its top', async () => {
      const path = database.env.DB_PATH!;
      const rows = (from: number) => batchOf(...Array.from({ length: 500 }, (_, i) => message(from + i)));
      // Only a checkpoint moves pages from the WAL into the database file.
      const fileSize = () => statSync(path).size;
      const never = startSqliteWriter(path, { checkpointRows: Number.MAX_SAFE_INTEGER });
      const start = fileSize();
      try {
        for (let b = 0; b < 4; b++) await never.write(rows(b * 500));
      } finally {
        await never.close();
      }
      expect(fileSize()).toBe(start);
      const walAfterNever = statSync(`${path}-wal`).size;

      const done: Array<{ log: number; checkpointed: number }> = [];
      let reported: () => void = () => undefined;
      const often = startSqliteWriter(path, {
        checkpointRows: 1000,
        onCheckpoint: (d) => {
          done.push(d);
          reported();
        },
      });
      try {
        const first = new Promise<void>((resolve) => (reported = resolve));
        for (let b = 4; b < 8; b++) await often.write(rows(b * 500));
        await first;
        expect(done[0]!.checkpointed).toBeGreaterThan(0);
        expect(done[0]!.checkpointed).toBe(done[0]!.log);
        expect(fileSize()).toBeGreaterThan(start);
        // Commits after it: the writer copies what came meanwhile, then the WAL restarts, so the
        // file holds a few thousand rows at most however long writing goes on (16,000 rows more
        // without restarts would make it about 9 times the size 2,000 rows made).
        for (let b = 8; b < 40; b++) await often.write(rows(b * 500));
      } finally {
        await often.close();
      }
      expect(done.length).toBeGreaterThan(1);
      expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(2 * walAfterNever);
    });

    it('can checkpoint in the writer thread between commits instead', async () => {
      const path = database.env.DB_PATH!;
      const start = statSync(path).size;
      const inline = startSqliteWriter(path, { checkpointRows: 1000, checkpoints: 'inline' });
      try {
        for (let b = 0; b < 4; b++) await inline.write(batchOf(...Array.from({ length: 500 }, (_, i) => message(b * 500 + i))));
        // The checkpoint runs after the reply; the next request's reply comes after it.
        await inline.defaultThreads([]);
      } finally {
        await inline.close();
      }
      expect(statSync(path).size).toBeGreaterThan(start);
    });

    it('commits with synchronous=FULL unless configured NORMAL', async () => {
      const level = async (s: Store) => (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(s.db)).rows[0]!.synchronous;
      expect(await level(store)).toBe(2);
      const normal = openStore({ ...(dbConfig(database) as { driver: 'sqlite'; path: string }), synchronous: 'normal' });
      try {
        expect(await level(normal)).toBe(1);
        await expect(normal.writeBatch(batchOf(message(9)))).resolves.toMatchObject({ messages: [{ duplicate: false }] });
      } finally {
        await normal.close();
      }
    });
  }
}
