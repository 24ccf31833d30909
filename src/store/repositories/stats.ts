// Read-only aggregates behind the dashboard's charts: counts per minute, tallies and the oldest
// unanswered message, each one query that walks an index (migrations 0008 and messages_pair_idx),
// so no chart ever reads raw history. Timestamps are ISO 8601 text: its first 16 characters are the
// minute (`2026-01-05T10:04`) on both drivers.
import { sql, type Kysely } from 'kysely';
import { TalliedTypes } from '../../protocol/stats.js';
import type { Database } from '../schema.js';
import { filteredMessages, type MessageFilter } from './messageFilter.js';

export interface MinuteCount {
  minute: string;
  key: string;
  n: number;
}

export interface CountWindow extends MessageFilter {
  since: string;
}

export interface Tally {
  type: string;
  value: string | null;
  n: number;
}

export interface PayloadRow {
  id: number;
  created_at: string;
  payload: string;
}

export interface UnansweredRow {
  peer_id: number;
  id: number;
  payload: string;
  created_at: string;
  waiting: number;
}

const minute = sql<string>`substr(created_at, 1, 16)`;

export function createStatsRepo(db: Kysely<Database>, driver: 'sqlite' | 'postgres') {
  /**
   * A top-level string field of the JSON payload (null for text payloads and missing fields). The
   * name is a constant written as a literal: PostgreSQL matches GROUP BY to SELECT only without parameters.
   */
  const field = (name: 'verdict' | 'severity') =>
    driver === 'sqlite' ? sql<string | null>`json_extract(payload, ${sql.lit(`$.${name}`)})` : sql<string | null>`(payload::jsonb ->> ${sql.lit(name)})`;

  const windowed = (query: CountWindow) => filteredMessages(db, query);

  return {
    /** Messages per minute per sender since `since`. */
    async messagesPerMinute(query: CountWindow): Promise<MinuteCount[]> {
      const rows = await windowed(query)
        .select([minute.as('minute'), 'sender_name as key', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy([minute, 'sender_name'])
        .execute();
      return rows.map((r) => ({ minute: r.minute, key: r.key, n: Number(r.n) }));
    },

    /** Reports by SYSTEM_LOG level, CODE_REVIEW verdict and SECURITY_ALERT severity since `since`. */
    async reportTallies(query: Omit<CountWindow, 'types' | 'level' | 'q'>): Promise<Tally[]> {
      const value = sql<string | null>`CASE type WHEN 'SYSTEM_LOG' THEN level WHEN 'CODE_REVIEW' THEN ${field('verdict')} ELSE ${field('severity')} END`;
      const rows = await windowed({ ...query, types: TalliedTypes })
        .select(['type', value.as('value'), (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy(['type', value])
        .execute();
      return rows.map((r) => ({ type: r.type, value: r.value, n: Number(r.n) }));
    },

    /** The newest `limit` payloads of one sender and type since `since`, oldest first. */
    async payloads(query: { type: string; senderName: string; since: string; limit: number; visibleTo?: number }): Promise<PayloadRow[]> {
      const rows = await windowed({ types: [query.type], since: query.since, senderName: query.senderName, visibleTo: query.visibleTo })
        .select(['id', 'created_at', 'payload'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .execute();
      return rows.reverse();
    },

    /** The current connector's id, when there is one. */
    async currentConnectorId(): Promise<number | undefined> {
      const row = await db.selectFrom('connectors').select('id').where('is_current', '=', 1).executeTakeFirst();
      return row?.id;
    },

    /** One connector's log entries per minute per action since `since`. */
    async connectorActionsPerMinute(connectorId: number, since: string): Promise<MinuteCount[]> {
      const rows = await db
        .selectFrom('connector_logs')
        .where('connector_id', '=', connectorId)
        .where('created_at', '>=', since)
        .select([minute.as('minute'), 'action as key', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy([minute, 'action'])
        .execute();
      return rows.map((r) => ({ minute: r.minute, key: r.key, n: Number(r.n) }));
    },

    /**
     * Per machine peer, `me`'s oldest CHAT to it with no CHAT from it to `me` after it, and how many
     * of `me`'s messages wait. Walks messages_pair_idx (sender_id, target_id, id) only: the peers
     * `me` wrote to, then per peer its last reply and what `me` sent after it, so the cost follows the
     * peers and the waiting messages, not everything `me` ever sent.
     */
    async unanswered(me: number): Promise<UnansweredRow[]> {
      const { rows } = await sql<{ peer_id: number; id: number; payload: string; created_at: string; waiting: number }>`
        WITH peers AS (
          SELECT p.peer_id,
            coalesce((SELECT max(r.id) FROM messages r WHERE r.sender_id = p.peer_id AND r.target_id = ${me} AND r.type = 'CHAT'), 0) AS last_reply
          FROM (SELECT DISTINCT target_id AS peer_id FROM messages WHERE sender_id = ${me} AND target_id IS NOT NULL) p
          JOIN users u ON u.id = p.peer_id AND u.role IN ('AGENT', 'BUTLER')
        ),
        waiting AS (
          SELECT q.peer_id,
            (SELECT min(m.id) FROM messages m WHERE m.sender_id = ${me} AND m.target_id = q.peer_id AND m.id > q.last_reply AND m.type = 'CHAT') AS first_id,
            (SELECT count(*) FROM messages m WHERE m.sender_id = ${me} AND m.target_id = q.peer_id AND m.id > q.last_reply AND m.type = 'CHAT') AS waiting
          FROM peers q
        )
        SELECT w.peer_id, o.id, o.payload, o.created_at, w.waiting
        FROM waiting w JOIN messages o ON o.id = w.first_id
        ORDER BY o.id`.execute(db);
      return rows.map((r) => ({ peer_id: Number(r.peer_id), id: Number(r.id), payload: r.payload, created_at: r.created_at, waiting: Number(r.waiting) }));
    },
  };
}
export type StatsRepo = ReturnType<typeof createStatsRepo>;
