// One group commit: many messages, presence changes and thread touches in a single transaction,
// with prepared statements on SQLite and one multi-row INSERT on PostgreSQL. This is the only
// writer of the `messages` table, so ids grow in commit order and `since=<id>` resume is exact.
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { PgClient, PgPool } from './pgPool.js';

/** A message row as the hub writes it; every column given. */
export interface MessageInsert {
  type: string;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  target_id: number | null;
  target_role: string | null;
  payload: string;
  level: string | null;
  content: string;
  local_id: string | null;
  conversation_id: number | null;
  stream_id: string | null;
  created_at: string;
}

/** Presence columns of a user; unset fields are left as they are. */
export interface PresencePatch {
  status?: string;
  online?: number;
  last_seen_at?: string;
  last_report?: string;
  /**
   * Cluster mode: the change's place in the order the bus gave presence decisions. The row takes it
   * only when it is newer than the change stored last (a stale OFFLINE must not win); unset: always.
   */
  seq?: number;
}

export interface WriteBatch {
  messages: MessageInsert[];
  presence: Array<{ userId: number; patch: PresencePatch; at: string }>;
  threads: Array<{ id: number; at: string }>;
}

/**
 * For each message in order: its id, and whether an earlier row with its (sender, local_id) was kept
 * instead. A batch must not hold one (sender, local_id) twice; the pipeline folds such repeats first.
 */
export interface StoredMessage {
  id: number;
  created_at: string;
  conversation_id: number | null;
  duplicate: boolean;
}

export interface PresenceRow {
  id: number;
  username: string;
  role: string;
  status: string;
  online: number;
  last_seen_at: string | null;
  last_report: string | null;
}

/**
 * Where a batch sits in the commit order of every writer on the database (cluster mode): every
 * message id up to `prev` was final when it committed, and its own ids are at most `last`.
 */
export interface CommitMark {
  prev: number;
  last: number;
}

export interface BatchResult {
  messages: StoredMessage[];
  /** The users whose presence changed, as stored (a deleted user is simply absent). */
  presence: PresenceRow[];
  /** Set by an ordered writer (cluster mode). */
  order?: CommitMark;
}

export type BatchWriter = (batch: WriteBatch) => Promise<BatchResult>;

/** What a batch weighs for the writer's bounds: its rows, and roughly the bytes they carry. */
export interface BatchCost {
  rows: number;
  bytes: number;
}

/** Per-row overhead beyond the text columns (ids, names, timestamps, index entries), roughly. */
const ROW_BYTES = 160;

const textLength = (value: unknown) => (typeof value === 'string' ? value.length : 0);

export function batchCost(batch: WriteBatch): BatchCost {
  let bytes = 0;
  // Read defensively: a malformed row must be refused by the database, not break the writer.
  for (const m of batch.messages) bytes += ROW_BYTES + textLength(m.payload) + textLength(m.content);
  const rows = batch.messages.length + batch.presence.length + batch.threads.length;
  return { rows, bytes: bytes + ROW_BYTES * (batch.presence.length + batch.threads.length) };
}

/** The default conversation thread of (owner, peer, kind), made if it does not exist yet. */
export interface DefaultThreadRequest {
  ownerId: number;
  peerId: number;
  kind: string;
  title: string;
  at: string;
}

/** Each request's thread id, in order. */
export type DefaultThreadsWriter = (requests: DefaultThreadRequest[]) => Promise<number[]>;

// The conflict target repeats the partial index's own literal: SQLite cannot match `is_default = ?`.
const THREAD_INSERT = `INSERT INTO conversation_threads (owner_user_id, peer_user_id, channel_kind, title, is_default, created_at, updated_at)
  VALUES (?, ?, ?, ?, 1, ?, ?)
  ON CONFLICT (owner_user_id, peer_user_id, channel_kind) WHERE is_default = 1 DO NOTHING`;
const THREAD_FIND = 'SELECT id FROM conversation_threads WHERE owner_user_id = ? AND peer_user_id = ? AND channel_kind = ? AND is_default = 1';
const numbered = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/**
 * Default threads made by the writer itself (SQLite's writer thread), inside its group commit's
 * transaction: a main thread writing them on its own connection would wait, event loop stopped,
 * for the writer's lock.
 */
export function sqliteDefaultThreads(raw: BetterSqlite3.Database): (requests: DefaultThreadRequest[]) => number[] {
  let run: ((requests: DefaultThreadRequest[]) => number[]) | undefined;
  const prepare = () => {
    const insert = raw.prepare(THREAD_INSERT);
    const find = raw.prepare(THREAD_FIND);
    return (requests: DefaultThreadRequest[]) =>
      requests.map((r) => {
        insert.run(r.ownerId, r.peerId, r.kind, r.title, r.at, r.at);
        return (find.get(r.ownerId, r.peerId, r.kind) as { id: number }).id;
      });
  };
  return (requests) => {
    run ??= prepare();
    return run(requests);
  };
}

// Every request in two statements, each committing on its own: no transaction stays open across a
// round trip holding the new rows, which a cluster's ordered batch (touching those threads) or
// another node making the same threads would wait on. Rows go in sorted by their key, so two nodes
// making overlapping sets take the index's locks in one order and never deadlock.
const PG_THREADS_INSERT = `INSERT INTO conversation_threads (owner_user_id, peer_user_id, channel_kind, title, is_default, created_at, updated_at)
  SELECT t.owner, t.peer, t.kind, t.title, 1, t.at, t.at
  FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(owner, peer, kind, title, at)
  ORDER BY t.owner, t.peer, t.kind
  ON CONFLICT (owner_user_id, peer_user_id, channel_kind) WHERE is_default = 1 DO NOTHING`;
const PG_THREADS_FIND = `SELECT c.id, k.ord FROM unnest($1::bigint[], $2::bigint[], $3::text[]) WITH ORDINALITY AS k(owner, peer, kind, ord)
  JOIN conversation_threads c ON c.owner_user_id = k.owner AND c.peer_user_id = k.peer AND c.channel_kind = k.kind AND c.is_default = 1`;

export function postgresDefaultThreads(pool: PgPool): DefaultThreadsWriter {
  return async (requests) => {
    if (requests.length === 0) return [];
    const owners = requests.map((r) => r.ownerId);
    const peers = requests.map((r) => r.peerId);
    const kinds = requests.map((r) => r.kind);
    await pool.query(PG_THREADS_INSERT, [owners, peers, kinds, requests.map((r) => r.title), requests.map((r) => r.at)]);
    const found = await pool.query<{ id: number; ord: string }>(PG_THREADS_FIND, [owners, peers, kinds]);
    const ids: number[] = [];
    for (const row of found.rows) ids[Number(row.ord) - 1] = Number(row.id);
    return requests.map((r, i) => {
      if (ids[i] === undefined) throw new Error(`the default thread of ${r.ownerId}/${r.peerId}/${r.kind} was neither made nor found`);
      return ids[i];
    });
  };
}

const COLUMNS = [
  'type',
  'sender_id',
  'sender_name',
  'sender_role',
  'target_id',
  'target_role',
  'payload',
  'level',
  'content',
  'local_id',
  'conversation_id',
  'stream_id',
  'created_at',
] as const satisfies ReadonlyArray<keyof MessageInsert>;

const PRESENCE_UPDATE = `UPDATE users SET
  status = coalesce(?, status), online = coalesce(?, online), last_seen_at = coalesce(?, last_seen_at),
  last_report = coalesce(?, last_report), updated_at = ?
  WHERE id = ? RETURNING id, username, role, status, online, last_seen_at, last_report`;

/**
 * One batch of the SQLite group commit, synchronous, over `raw` (statements prepared on first use:
 * the store is opened before migrations have created the tables). It runs in the writer's worker
 * thread, inside the transaction the thread opened for the whole group (sqliteWriterThread.ts), where
 * waiting for the disk does not stop the event loop.
 */
export function sqliteBatchStatements(raw: BetterSqlite3.Database): (batch: WriteBatch) => BatchResult {
  let write: ((batch: WriteBatch) => BatchResult) | undefined;
  const prepare = () => {
    // No RETURNING: SQLite runs it through a temporary table, which halved insert throughput here;
    // `changes` says whether the row went in, `lastInsertRowid` is its id.
    const insert = raw.prepare(
      `INSERT INTO messages (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})
       ON CONFLICT (sender_id, local_id) WHERE local_id IS NOT NULL DO NOTHING`,
    );
    const existing = raw.prepare('SELECT id, created_at, conversation_id FROM messages WHERE sender_id = ? AND local_id = ?');
    const updateUser = raw.prepare(PRESENCE_UPDATE);
    const touch = raw.prepare('UPDATE conversation_threads SET last_message_at = ? WHERE id = ?');
    return (batch: WriteBatch): BatchResult => {
      const messages: StoredMessage[] = [];
      for (const m of batch.messages) {
        const result = insert.run(COLUMNS.map((c) => m[c]));
        if (result.changes === 1) {
          messages.push({ id: Number(result.lastInsertRowid), created_at: m.created_at, conversation_id: m.conversation_id, duplicate: false });
        } else {
          const first = existing.get(m.sender_id, m.local_id) as Omit<StoredMessage, 'duplicate'>;
          messages.push({ ...first, duplicate: true });
        }
      }
      const presence: PresenceRow[] = [];
      for (const { userId, patch, at } of batch.presence) {
        const row = updateUser.get(patch.status ?? null, patch.online ?? null, patch.last_seen_at ?? null, patch.last_report ?? null, at, userId) as
          PresenceRow | undefined;
        if (row) presence.push(row);
      }
      for (const { id, at } of batch.threads) touch.run(at, id);
      return { messages, presence };
    };
  };
  return (batch) => {
    write ??= prepare();
    return write(batch);
  };
}

const PG_TYPES: Record<(typeof COLUMNS)[number], string> = {
  type: 'text',
  sender_id: 'bigint',
  sender_name: 'text',
  sender_role: 'text',
  target_id: 'bigint',
  target_role: 'text',
  payload: 'text',
  level: 'text',
  content: 'text',
  local_id: 'text',
  conversation_id: 'bigint',
  stream_id: 'text',
  created_at: 'text',
};

// One statement for the whole batch: columns arrive as arrays, rows are inserted in batch order
// (so ids follow it), and a repeated (sender, local_id) is skipped.
const PG_INSERT = `INSERT INTO messages (${COLUMNS.join(', ')})
  SELECT ${COLUMNS.map((c) => `t.${c}`).join(', ')}
  FROM unnest(${COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[c]}[]`).join(', ')}) WITH ORDINALITY AS t(${COLUMNS.join(', ')}, ord)
  ORDER BY t.ord
  ON CONFLICT (sender_id, local_id) WHERE local_id IS NOT NULL DO NOTHING
  RETURNING id, sender_id, local_id`;
const PG_EXISTING = `SELECT m.id, m.sender_id, m.local_id, m.created_at, m.conversation_id FROM messages m
  JOIN unnest($1::bigint[], $2::text[]) AS k(sender_id, local_id) ON m.sender_id = k.sender_id AND m.local_id = k.local_id`;
const PG_PRESENCE = numbered(PRESENCE_UPDATE);
// A change ordered by the bus (seq) applies only over an older one.
const PG_PRESENCE_ORDERED = `UPDATE users SET
  status = coalesce($1, status), online = coalesce($2, online), last_seen_at = coalesce($3, last_seen_at),
  last_report = coalesce($4, last_report), updated_at = $5, presence_seq = $7
  WHERE id = $6 AND presence_seq < $7 RETURNING id, username, role, status, online, last_seen_at, last_report`;
// Many users at once, each at most once (see writePresence): a change with a seq applies only over
// an older one, as PG_PRESENCE_ORDERED; one without (decided alone while Redis was away) always.
const PG_PRESENCE_MANY = `UPDATE users AS u SET
  status = coalesce(p.status, u.status), online = coalesce(p.online, u.online), last_seen_at = coalesce(p.last_seen_at, u.last_seen_at),
  last_report = coalesce(p.last_report, u.last_report), updated_at = p.at, presence_seq = coalesce(p.seq, u.presence_seq)
  FROM unnest($1::bigint[], $2::text[], $3::smallint[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::int[])
    AS p(id, status, online, last_seen_at, last_report, at, seq, ord)
  WHERE u.id = p.id AND (p.seq IS NULL OR u.presence_seq < p.seq)
  RETURNING u.id, u.username, u.role, u.status, u.online, u.last_seen_at, u.last_report, p.ord`;

/**
 * Presence changes of a batch in one statement per round (a user's first change in the batch is in
 * round 1, its second in round 2...), instead of one UPDATE each: in cluster mode the batch holds
 * the commit-order lock of every node while it writes, so a connect storm's thousands of changes
 * were as many round trips with every node's commits waiting (seen profiling the scale bench).
 * Rows come back in the batch's order, so PRESENCE frames keep it.
 */
async function writePresence(client: PgClient, changes: WriteBatch['presence']): Promise<PresenceRow[]> {
  if (changes.length === 0) return [];
  const roundOf = presenceRounds(changes);
  const rounds: Array<Array<{ change: WriteBatch['presence'][number]; ord: number }>> = [];
  changes.forEach((change, ord) => (rounds[roundOf[ord]! - 1] ??= []).push({ change, ord }));
  const rows: Array<PresenceRow & { ord: number }> = [];
  for (const round of rounds) {
    const result = await client.query<PresenceRow & { ord: string }>(PG_PRESENCE_MANY, [
      ...presenceColumns(round.map(({ change }) => change)),
      round.map(({ ord }) => ord),
    ]);
    for (const r of result.rows) rows.push({ ...r, ord: Number(r.ord) });
  }
  rows.sort((a, b) => a.ord - b.ord);
  return rows.map(({ ord: _ord, ...row }) => row);
}

/** Presence changes as one array per column: user id, status, online, last_seen_at, last_report, at, seq. */
function presenceColumns(changes: WriteBatch['presence']): unknown[][] {
  const col = (f: (c: WriteBatch['presence'][number]) => unknown) => changes.map(f);
  return [
    col((c) => c.userId),
    col((c) => c.patch.status ?? null),
    col((c) => c.patch.online ?? null),
    col((c) => c.patch.last_seen_at ?? null),
    col((c) => c.patch.last_report ?? null),
    col((c) => c.at),
    col((c) => (c.patch.seq === undefined ? null : String(c.patch.seq))),
  ];
}

/** Each change's round, from 1: a user's first change in the batch is in round 1, its second in round 2... */
function presenceRounds(changes: WriteBatch['presence']): number[] {
  const seen = new Map<number, number>();
  return changes.map((change) => {
    const round = (seen.get(change.userId) ?? 0) + 1;
    seen.set(change.userId, round);
    return round;
  });
}

/** One UPDATE per change: the writer before `writePresence`, kept for its benchmark. */
async function writePresenceEach(client: PgClient, changes: WriteBatch['presence']): Promise<PresenceRow[]> {
  const presence: PresenceRow[] = [];
  for (const { userId, patch, at } of changes) {
    const values = [patch.status ?? null, patch.online ?? null, patch.last_seen_at ?? null, patch.last_report ?? null, at, userId];
    const result =
      patch.seq === undefined
        ? await client.query<PresenceRow>(PG_PRESENCE, values)
        : await client.query<PresenceRow>(PG_PRESENCE_ORDERED, [...values, patch.seq]);
    if (result.rows[0]) presence.push(result.rows[0]);
  }
  return presence;
}

/**
 * Cluster mode's commit order: batches of every node commit in id order, each taking the
 * commit-order row (migrations/0007) before it draws ids and moving it on as it commits.
 * - 'statement' (the hub's): the whole batch is one call of `hub_write_ordered_batch`
 *   (migrations/0020) in a statement of its own, so the order is held only while the server runs
 *   it. A node paused or starved of CPU between two statements can hold nothing.
 * - 'transaction': the writer before it, kept for bench/micro/orderedCommits.ts: a transaction that
 *   holds the order from its first statement to COMMIT, over three or four of the node's round trips
 *   (bounded by an idle-in-transaction limit of TRANSACTION_HOLD_MS).
 */
export type OrderedCommits = 'statement' | 'transaction';

export interface PostgresWriterOptions {
  /** Cluster mode (see `OrderedCommits`). */
  ordered?: OrderedCommits;
  /** false: a batch starts only once the one before has settled (the writer before pipelining, for the writer benchmark). */
  pipelined?: boolean;
  /**
   * false: one UPDATE (one round trip) per presence change, as before the scale work (for
   * bench/micro/presenceWrites.ts; 'transaction' or unordered only). Default: one statement per round.
   */
  presenceInOneStatement?: boolean;
}

/** How long an ordered transaction ('transaction') may keep the order while the server waits for its node. */
const TRANSACTION_HOLD_MS = 2_000;
const ORDERED_BEGIN = `BEGIN; SET LOCAL idle_in_transaction_session_timeout = ${TRANSACTION_HOLD_MS}; SELECT last_id FROM cluster_commit_order WHERE id = 1 FOR UPDATE`;

/**
 * Pipelined: a batch runs its statements once the batch before has drawn its ids (so ids follow
 * posting order) and commits once that batch has settled (so commits follow them too); its inserts
 * thus overlap the previous commit's wait for the disk. Two batches at most are in flight
 * (`writeDepth` 2). In ordered mode the second waits at the commit-order row lock instead.
 */
export function postgresBatchWriter(pool: PgPool, options: PostgresWriterOptions = {}): BatchWriter {
  if (options.ordered === 'statement') return postgresOrderedWriter(pool);
  const ordered = options.ordered === 'transaction';
  let idsDrawn: Promise<void> = Promise.resolve();
  let settled: Promise<void> = Promise.resolve();
  return async (batch) => {
    const afterIds = options.pipelined === false ? settled : idsDrawn;
    const afterCommit = settled;
    let drew!: () => void;
    let done!: () => void;
    idsDrawn = new Promise((resolve) => (drew = resolve));
    settled = new Promise((resolve) => (done = resolve));
    let client: PgClient | undefined;
    try {
      client = await pool.connect();
      await afterIds;
      let prev = 0;
      if (ordered) {
        // One round trip for all three (a simple query may hold several statements); the lock is held to COMMIT.
        const results = (await client.query(ORDERED_BEGIN)) as unknown as Array<pg.QueryResult<{ last_id: number }>>;
        prev = Number(results[2]?.rows[0]?.last_id ?? 0);
      } else await client.query('BEGIN');
      const messages = await insertMessages(client, batch.messages);
      const presence = options.presenceInOneStatement === false ? await writePresenceEach(client, batch.presence) : await writePresence(client, batch.presence);
      for (const { id, at } of batch.threads) await client.query('UPDATE conversation_threads SET last_message_at = $1 WHERE id = $2', [at, id]);
      let order: CommitMark | undefined;
      if (ordered) {
        let last = prev;
        for (const m of messages) if (!m.duplicate && m.id > last) last = m.id;
        order = { prev, last };
        // Holding the commit-order lock means the batch before has committed: the next may start
        // (it waits at the lock), and the move and the commit go in one round trip (`last` is an
        // integer the store just returned).
        drew();
        await afterCommit;
        if (last > prev) await client.query(`UPDATE cluster_commit_order SET last_id = ${Math.trunc(last)} WHERE id = 1; COMMIT`);
        else await client.query('COMMIT');
      } else {
        drew();
        await afterCommit;
        await client.query('COMMIT');
      }
      return order ? { messages, presence, order } : { messages, presence };
    } catch (err) {
      await client?.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      drew();
      done();
      client?.release();
    }
  };
}

const PRESENCE_TYPES = ['bigint', 'text', 'smallint', 'text', 'text', 'text', 'bigint', 'int', 'int'];
const THREAD_TYPES = ['bigint', 'text'];
const PG_ORDERED_BATCH = `SELECT hub_write_ordered_batch(${[...COLUMNS.map((c) => PG_TYPES[c]), ...PRESENCE_TYPES, ...THREAD_TYPES]
  .map((type, i) => `$${i + 1}::${type}[]`)
  .join(', ')}) AS answer`;

/** What `hub_write_ordered_batch` answers (see migrations/0020). */
interface OrderedAnswer {
  prev: number;
  last: number;
  inserted: Array<[id: number, senderId: number, localId: string | null]>;
  existing: Array<[id: number, senderId: number, localId: string, createdAt: string, conversationId: number | null]>;
  presence: Array<
    [ord: number, id: number, username: string, role: string, status: string, online: number, lastSeenAt: string | null, lastReport: string | null]
  >;
}

/**
 * Cluster mode's writer ('statement'): one round trip per batch, the batch's own statement. A batch
 * is sent once the one before has committed, so a node's ids follow its posting order.
 */
function postgresOrderedWriter(pool: PgPool): BatchWriter {
  let settled: Promise<void> = Promise.resolve();
  return async (batch) => {
    const before = settled;
    let done!: () => void;
    settled = new Promise((resolve) => (done = resolve));
    try {
      await before;
      const rounds = presenceRounds(batch.presence);
      const result = await pool.query<{ answer: OrderedAnswer }>(PG_ORDERED_BATCH, [
        ...messageColumns(batch.messages),
        ...presenceColumns(batch.presence),
        batch.presence.map((_c, ord) => ord),
        rounds,
        batch.threads.map((t) => t.id),
        batch.threads.map((t) => t.at),
      ]);
      const answer = result.rows[0]!.answer;
      const messages = storedMessages(
        batch.messages,
        answer.inserted.map(([id, sender_id, local_id]) => ({ id, sender_id, local_id })),
        answer.existing.map(([id, sender_id, local_id, created_at, conversation_id]) => ({ id, sender_id, local_id, created_at, conversation_id })),
      );
      const changes = [...answer.presence].sort((a, b) => a[0] - b[0]);
      return {
        messages,
        presence: changes.map(([, id, username, role, status, online, last_seen_at, last_report]) => ({
          id,
          username,
          role,
          status,
          online,
          last_seen_at,
          last_report,
        })),
        order: { prev: Number(answer.prev), last: Number(answer.last) },
      };
    } finally {
      done();
    }
  };
}

/** The batch's rows as one array per column, in COLUMNS order. */
const messageColumns = (rows: MessageInsert[]) => COLUMNS.map((c) => rows.map((r) => r[c]));

interface InsertedRow {
  id: number;
  sender_id: number;
  local_id: string | null;
}

interface ExistingRow {
  id: number;
  sender_id: number;
  local_id: string;
  created_at: string;
  conversation_id: number | null;
}

async function insertMessages(client: PgClient, rows: MessageInsert[]): Promise<StoredMessage[]> {
  if (rows.length === 0) return [];
  const inserted = (await client.query<InsertedRow>(PG_INSERT, messageColumns(rows))).rows;
  const insertedKeys = new Set(inserted.filter((r) => r.local_id !== null).map((r) => keyOf(r.sender_id, r.local_id!)));
  const missing = rows.filter((r) => r.local_id !== null && !insertedKeys.has(keyOf(r.sender_id, r.local_id)));
  const existing =
    missing.length === 0 ? [] : (await client.query<ExistingRow>(PG_EXISTING, [missing.map((r) => r.sender_id), missing.map((r) => r.local_id)])).rows;
  return storedMessages(rows, inserted, existing);
}

const keyOf = (senderId: number, localId: string) => `${senderId}\u0000${localId}`;

/**
 * Each row's outcome, in order, from the rows the INSERT returned and the stored rows of the
 * repeats it skipped (a row with a local_id whose (sender, local_id) was stored before).
 */
function storedMessages(rows: MessageInsert[], inserted: InsertedRow[], existing: ExistingRow[]): StoredMessage[] {
  const byKey = new Map<string, StoredMessage>();
  // Rows without a local_id are never skipped: their ids, ascending, follow batch order.
  const plainIds: number[] = [];
  for (const r of inserted) {
    if (r.local_id === null) plainIds.push(r.id);
    else byKey.set(keyOf(r.sender_id, r.local_id), { id: r.id, created_at: '', conversation_id: null, duplicate: false });
  }
  plainIds.sort((a, b) => a - b);
  for (const r of existing)
    if (!byKey.has(keyOf(r.sender_id, r.local_id)))
      byKey.set(keyOf(r.sender_id, r.local_id), { id: r.id, created_at: r.created_at, conversation_id: r.conversation_id, duplicate: true });

  let plain = 0;
  return rows.map((r) => {
    if (r.local_id === null) return { id: plainIds[plain++]!, created_at: r.created_at, conversation_id: r.conversation_id, duplicate: false };
    const stored = byKey.get(keyOf(r.sender_id, r.local_id));
    if (!stored) throw new Error(`message ${r.sender_id}/${r.local_id} was neither inserted nor found`);
    return stored.duplicate ? stored : { ...stored, created_at: r.created_at, conversation_id: r.conversation_id };
  });
}

/** Retention: the oldest rows of some types, stored before `before`, at most `limit` of each per call. */
export interface PruneRequest {
  types: readonly string[];
  /** A timestamp as the hub stores them (ISO 8601, UTC). */
  before: string;
  limit: number;
}

/** Rows deleted, by type. */
export type PruneResult = Record<string, number>;

export type MessagePruner = (request: PruneRequest) => Promise<PruneResult>;

// Ids follow commit order and timestamps follow ids, so a type's expired rows are a prefix of its
// rows in id order: read the oldest few through messages_type_idx (type, id), stop at the first
// that is still young, and delete that prefix by the same index. Never a scan of the whole table.
const PRUNE_OLDEST = 'SELECT id, created_at FROM messages WHERE type = ? ORDER BY id LIMIT ?';
const PRUNE_DELETE = 'DELETE FROM messages WHERE type = ? AND id <= ?';

function lastExpired(rows: Array<{ id: number; created_at: string }>, before: string): number | undefined {
  let last: number | undefined;
  for (const row of rows) {
    if (row.created_at >= before) break;
    last = row.id;
  }
  return last;
}

/** On SQLite it runs in the writer thread, inside a group commit's transaction: no lock against the writer. */
export function sqlitePruneMessages(raw: BetterSqlite3.Database): (request: PruneRequest) => PruneResult {
  let run: ((request: PruneRequest) => PruneResult) | undefined;
  const prepare = () => {
    const oldest = raw.prepare(PRUNE_OLDEST);
    const remove = raw.prepare(PRUNE_DELETE);
    return (request: PruneRequest) => {
      const result: PruneResult = {};
      for (const type of request.types) {
        const last = lastExpired(oldest.all(type, request.limit) as Array<{ id: number; created_at: string }>, request.before);
        result[type] = last === undefined ? 0 : remove.run(type, last).changes;
      }
      return result;
    };
  };
  return (request) => {
    run ??= prepare();
    return run(request);
  };
}

export function postgresPruneMessages(pool: PgPool): MessagePruner {
  const oldest = numbered(PRUNE_OLDEST);
  const remove = numbered(PRUNE_DELETE);
  return async (request) => {
    const result: PruneResult = {};
    for (const type of request.types) {
      const rows = await pool.query<{ id: number; created_at: string }>(oldest, [type, request.limit]);
      const last = lastExpired(rows.rows, request.before);
      result[type] = last === undefined ? 0 : ((await pool.query(remove, [type, last])).rowCount ?? 0);
    }
    return result;
  };
}
