// Expensive reads (the dashboard's message list and search, the charts' counts) against real stores:
// they run on the store's read side, so neither the event loop (SQLite) nor the message writer's
// connections (PostgreSQL) wait for them; one caller may have READS_PER_CALLER of them at once (429
// beyond); a read past DB_READ_TIMEOUT answers 503 with Retry-After; the list's total is counted up to
// 10,000 rows and says when it is capped.
//
// A read is made slow by construction: on SQLite, rows of 4,000 × "a" searched for 100 × "a" then "b"
// (SQLite's LIKE tries the pattern at every position of every row: about a second per scan of 1,000
// rows here); on PostgreSQL, a table locked by another session, so the read waits until the test lets go.
import type { Insertable } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';
import type { MessagesTable } from '../../src/store/schema.js';

type Sender = { id: number; username: string };

/** Inserts `count` SYSTEM_LOG rows straight into the store, in statements of 500 rows. */
async function seed(t: TestHub, sender: Sender, count: number, row: (i: number) => Partial<Insertable<MessagesTable>> = () => ({})): Promise<void> {
  const at = new Date().toISOString();
  for (let from = 0; from < count; from += 500) {
    const rows = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
      const i = from + k;
      return {
        type: 'SYSTEM_LOG',
        sender_id: sender.id,
        sender_name: sender.username,
        sender_role: 'AGENT',
        target_id: null,
        target_role: null,
        payload: JSON.stringify({ level: 'INFO', content: `row ${i}` }),
        level: 'INFO',
        content: `row ${i}`,
        created_at: at,
        ...row(i),
      } satisfies Insertable<MessagesTable>;
    });
    await t.hub.store.db.insertInto('messages').values(rows).execute();
  }
}

/** A search no row matches, which SQLite's LIKE spends a long time proving on the slow rows. */
const SLOW_SEARCH = `/api/messages?q=${'a'.repeat(100)}b`;
const SLOW_ROWS = 1_000;
const slowRow = () => ({ content: 'a'.repeat(4_000) });

/** Runs `during` while a session of its own holds `table` locked: every read of it waits. */
async function withTableLocked<T>(t: TestHub, table: string, during: (release: () => Promise<void>) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: t.dbEnv['DATABASE_URL'] });
  await client.connect();
  client.on('error', () => undefined);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await client.query('ROLLBACK');
  };
  try {
    await client.query('BEGIN');
    await client.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    return await during(release);
  } finally {
    await release().catch(() => undefined);
    await client.end();
  }
}

/** Resolves with `promise`'s value, or with `undefined` after `ms` (then `onLate` runs): a bound for the failing case. */
function within<T>(promise: Promise<T>, ms: number, onLate: () => Promise<void>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => void onLate().then(() => resolve(undefined)), ms);
  });
  return Promise.race([promise.finally(() => clearTimeout(timer)), late]);
}

describeEachDriver('capped total count of GET /api/messages', (driver) => {
  let t: TestHub;
  let agent: Sender;

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t?.stop());

  it('counts at most 10,000 rows and says so with X-Total-Count-Capped; a narrower filter is counted exactly', async () => {
    agent = await t.createAgent();
    await seed(t, agent, 10_050, (i) => (i < 7 ? { level: 'ERROR' } : {}));
    const all = await t.api.get('/api/messages?limit=5', { token: t.adminToken });
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(5);
    expect(all.headers.get('x-total-count')).toBe('10000');
    expect(all.headers.get('x-total-count-capped')).toBe('true');

    const errors = await t.api.get('/api/messages?level=ERROR', { token: t.adminToken });
    expect(errors.headers.get('x-total-count')).toBe('7');
    expect(errors.headers.get('x-total-count-capped')).toBeNull();
  });
});

describe('expensive reads on SQLite leave the event loop', () => {
  let t: TestHub;
  let agent: Sender & { api_token: string };

  beforeAll(async () => {
    t = await startTestHub('sqlite', { DB_READ_TIMEOUT: '60s' });
    agent = await t.createAgent();
    await seed(t, agent, SLOW_ROWS, slowRow);
  });
  afterAll(() => t?.stop());

  it("answers an agent's CHAT and keeps its timers on time while a search walks every row", async () => {
    const member = await t.createMember();
    const socket = await connectWs(t.url, agent.api_token);
    // The longest the event loop went without running a timer due every 5 ms, while the read ran.
    let last = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    try {
      const started = performance.now();
      let answeredAt: number | undefined;
      const reading = t.api.get(SLOW_SEARCH, { token: member.token }).then((res) => {
        answeredAt = performance.now();
        return res;
      });
      socket.send({ type: 'CHAT', target_id: member.id, local_id: 'during-the-read', payload: 'hello' });
      const ack = await socket.next('ACK', 30_000);
      const ackedWhileReading = answeredAt === undefined;
      const res = await reading;
      expect(res.status).toBe(200);
      expect(ack.local_id).toBe('during-the-read');
      // Judged against the read's own length, so a faster or busier machine changes nothing: a read on
      // the event loop would hold it for (nearly) all of it.
      const readMs = answeredAt! - started;
      expect(readMs).toBeGreaterThan(250);
      expect(ackedWhileReading).toBe(true);
      expect(longestGap).toBeLessThan(readMs / 3);
    } finally {
      clearInterval(ticker);
      await socket.close();
    }
  });
});

describe('a read past DB_READ_TIMEOUT on SQLite', () => {
  let t: TestHub;

  beforeAll(async () => {
    // Long enough for a new reader thread to start under tsx; the search takes several times longer.
    t = await startTestHub('sqlite', { DB_READ_TIMEOUT: '1500ms' });
    await seed(t, await t.createAgent(), 3 * SLOW_ROWS, slowRow);
  });
  afterAll(() => t?.stop());

  it('answers 503 with Retry-After, not 500, and the next read is served', async () => {
    const res = await t.api.get(SLOW_SEARCH, { token: t.adminToken });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body.error).toMatch(/DB_READ_TIMEOUT/);
    // The threads that ran it were replaced: a read that fits in time is answered.
    const next = await t.api.get('/api/messages?limit=1', { token: t.adminToken });
    expect(next.status).toBe(200);
  });
});

describe.skipIf(!inject('pgUrl'))('a read past DB_READ_TIMEOUT on PostgreSQL', () => {
  let t: TestHub;

  beforeAll(async () => {
    t = await startTestHub('postgres', { DB_READ_TIMEOUT: '500ms' });
  });
  afterAll(() => t?.stop());

  it('answers 503 with Retry-After when the statement times out', async () => {
    await withTableLocked(t, 'messages', async (release) => {
      const res = await within(t.api.get('/api/messages', { token: t.adminToken }), 5_000, release);
      expect(res?.status).toBe(503);
      expect(res?.headers.get('retry-after')).toBe('1');
      expect(res?.body.error).toMatch(/DB_READ_TIMEOUT/);
    });
  });
});

describe.skipIf(!inject('pgUrl'))("expensive reads on PostgreSQL do not take the message writer's connections", () => {
  let t: TestHub;

  beforeAll(async () => {
    // Every read admitted: the point is where they wait, not the per-caller limit.
    t = await startTestHub('postgres', { READS_PER_CALLER: '20' });
  });
  afterAll(() => t?.stop());

  it('acknowledges a CHAT while 12 reads wait on a locked table', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const socket = await connectWs(t.url, agent.api_token);
    try {
      await withTableLocked(t, 'connectors', async (release) => {
        const reads = Array.from({ length: 12 }, () => t.api.get('/api/stats/connector', { token: t.adminToken }));
        socket.send({ type: 'CHAT', target_id: member.id, local_id: 'while-reads-wait', payload: 'hello' });
        const ack = await socket.next('ACK', 5_000);
        expect(ack.local_id).toBe('while-reads-wait');
        await release();
        for (const res of await Promise.all(reads)) expect(res.status).toBe(200);
      });
    } finally {
      await socket.close();
    }
  });
});

describeEachDriver('READS_PER_CALLER', (driver) => {
  let t: TestHub;

  beforeAll(async () => {
    // Two reader threads: the two slow reads admitted run side by side, and the test takes half as long.
    t = await startTestHub(driver, { READS_PER_CALLER: '2', DB_READ_TIMEOUT: '60s', DB_READ_POOL_SIZE: '2' });
    if (driver === 'sqlite') await seed(t, await t.createAgent(), SLOW_ROWS, slowRow);
  });
  afterAll(() => t?.stop());

  /** Holds the reads: slow ones on SQLite, a locked table on PostgreSQL. */
  const holding = <T>(during: (release: () => Promise<void>) => Promise<T>) =>
    driver === 'postgres' ? withTableLocked(t, 'messages', during) : during(async () => {});

  it('refuses a third expensive read of one caller with 429 and Retry-After; another caller is not refused', async () => {
    const member = await t.createMember();
    const other = await t.createMember();
    await holding(async (release) => {
      const path = driver === 'postgres' ? '/api/messages' : SLOW_SEARCH;
      const answers = [0, 1, 2].map(() => t.api.get(path, { token: member.token }));
      // Two are held (slow, or waiting on the lock): the first answer is the third one's refusal.
      const first = await within(Promise.race(answers), 5_000, release);
      expect(first?.status).toBe(429);
      expect(first?.headers.get('retry-after')).toBe('1');
      expect(first?.body.error).toMatch(/READS_PER_CALLER/);
      // Another member's read is counted on its own.
      const theirs = t.api.get('/api/stats/unanswered', { token: other.token });
      await release();
      expect((await theirs).status).toBe(200);
      const statuses = (await Promise.all(answers)).map((res) => res.status).sort();
      expect(statuses).toEqual([200, 200, 429]);
    });
    // Slots are given back: the same caller reads again.
    expect((await t.api.get('/api/stats/unanswered', { token: member.token })).status).toBe(200);
  });
});
