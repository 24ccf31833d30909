// Telemetry retention on real SQLite and PostgreSQL: expired telemetry goes, oldest first and in
// small batches; young telemetry and every conversation row stay; the rows pruned are counted.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DbConfig } from '../../src/config.js';
import { createMetrics, type Metrics } from '../../src/metrics/registry.js';
import { PRUNED_TYPES, startRetention, type Retention } from '../../src/ops/retention.js';
import type { MessageInsert } from '../../src/store/batchWriter.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { createTestDatabase, describeEachDriver, type TestDatabase } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { parseMetrics, sampleKey, scrape } from '../helpers/metrics.js';

function dbConfig(database: TestDatabase): DbConfig {
  return database.env.DB_DRIVER === 'sqlite' ? { driver: 'sqlite', path: database.env.DB_PATH! } : { driver: 'postgres', url: database.env.DATABASE_URL! };
}

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 1);
const daysAgo = (days: number) => new Date(NOW - days * DAY).toISOString();
const silent = { info: () => undefined, warn: () => undefined };

let n = 0;
const row = (type: string, createdAt: string): MessageInsert => ({
  type,
  sender_id: 7,
  sender_name: 'agent-7',
  sender_role: 'AGENT',
  target_id: null,
  target_role: null,
  payload: '{}',
  level: type === 'CHAT' ? null : 'INFO',
  content: `${type} ${createdAt} ${++n}`,
  local_id: null,
  conversation_id: null,
  stream_id: null,
  created_at: createdAt,
});

describeEachDriver('telemetry retention', (driver) => {
  let database: TestDatabase;
  let store: Store;
  let metrics: Metrics;
  let retention: Retention | undefined;
  beforeEach(async () => {
    database = await createTestDatabase(driver);
    store = openStore(dbConfig(database));
    await migrate(store);
    metrics = createMetrics({ enabled: true });
  });
  afterEach(async () => {
    await retention?.stop();
    retention = undefined;
    await store.close();
    await database.drop();
  });

  const start = (options: { batchRows?: number; firstDelayMs?: number } = {}) =>
    (retention = startRetention({
      store,
      retentionMs: 30 * DAY,
      clock: () => new Date(NOW).toISOString(),
      logger: silent,
      metrics: metrics.factory,
      batchRows: options.batchRows ?? 2,
      // Far away: tests sweep by hand unless they test the timer.
      firstDelayMs: options.firstDelayMs ?? 3_600_000,
    }));
  const remaining = async () =>
    (await store.db.selectFrom('messages').select(['type', 'created_at']).orderBy('id').execute()).map((r) => `${r.type} ${r.created_at}`);
  const prunedMetric = async (type: string) => parseMetrics(await metrics.render()).get(sampleKey('hub_retention_pruned_rows_total', { type }));

  it('prunes expired telemetry of every telemetry type, keeps young telemetry and all chat rows', async () => {
    await store.writeBatch({
      messages: [
        ...[40, 35, 31, 31, 31].map((d) => row('SYSTEM_LOG', daysAgo(d))),
        row('SECURITY_ALERT', daysAgo(45)),
        row('WEATHER_UPDATE', daysAgo(60)),
        row('CODE_REVIEW', daysAgo(90)),
        row('CHAT', daysAgo(400)),
        row('AUTH_REQUEST', daysAgo(400)),
        row('SYSTEM_LOG', daysAgo(29)),
        row('CODE_REVIEW', daysAgo(1)),
      ],
      presence: [],
      threads: [],
    });
    // Five SYSTEM_LOG rows with batches of two: three batches for that type, one for the others.
    const pruned = await start().sweep();
    expect(pruned).toEqual({ SYSTEM_LOG: 5, WEATHER_UPDATE: 1, CODE_REVIEW: 1, SECURITY_ALERT: 1 });
    expect(await remaining()).toEqual([`CHAT ${daysAgo(400)}`, `AUTH_REQUEST ${daysAgo(400)}`, `SYSTEM_LOG ${daysAgo(29)}`, `CODE_REVIEW ${daysAgo(1)}`]);
    expect(await prunedMetric('SYSTEM_LOG')).toBe(5);
    expect(await prunedMetric('CODE_REVIEW')).toBe(1);
    expect(await retention!.sweep()).toEqual(Object.fromEntries(PRUNED_TYPES.map((t) => [t, 0])));
  });

  it('stops at the first young row of a type: a late row with an old timestamp waits', async () => {
    await store.writeBatch({
      messages: [row('SYSTEM_LOG', daysAgo(40)), row('SYSTEM_LOG', daysAgo(2)), row('SYSTEM_LOG', daysAgo(50))],
      presence: [],
      threads: [],
    });
    expect((await start({ batchRows: 10 }).sweep()).SYSTEM_LOG).toBe(1);
    expect(await remaining()).toEqual([`SYSTEM_LOG ${daysAgo(2)}`, `SYSTEM_LOG ${daysAgo(50)}`]);
  });

  it('prunes while messages are being written, without refusing any', async () => {
    await store.writeBatch({ messages: Array.from({ length: 300 }, () => row('SYSTEM_LOG', daysAgo(40))), presence: [], threads: [] });
    const r = start({ batchRows: 25 });
    const writes = Array.from({ length: 20 }, () =>
      store.writeBatch({ messages: Array.from({ length: 10 }, () => row('SYSTEM_LOG', daysAgo(0))), presence: [], threads: [] }),
    );
    const [pruned] = await Promise.all([r.sweep(), ...writes]);
    expect(pruned!.SYSTEM_LOG).toBe(300);
    expect(await remaining()).toHaveLength(200);
  });

  it('sweeps on its own timer once started', async () => {
    await store.writeBatch({ messages: [row('SYSTEM_LOG', daysAgo(40))], presence: [], threads: [] });
    start({ firstDelayMs: 0 });
    await vi.waitFor(async () => expect(await prunedMetric('SYSTEM_LOG')).toBe(1));
    expect(await remaining()).toEqual([]);
  });
});

describe('MESSAGE_RETENTION on a running hub', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  it('prunes expired telemetry in the background and counts it under /metrics', async () => {
    t = await startTestHub('sqlite', { MESSAGE_RETENTION: '30d' });
    const old = new Date(Date.now() - 40 * DAY).toISOString();
    await t.hub.store.writeBatch({ messages: [row('SYSTEM_LOG', old), row('CHAT', old)], presence: [], threads: [] });
    const key = sampleKey('hub_retention_pruned_rows_total', { type: 'SYSTEM_LOG' });
    // The first sweep runs 5 s after start.
    await vi.waitFor(async () => expect((await scrape(t!)).get(key)).toBe(1), { timeout: 20_000, interval: 250 });
    const types = await t.hub.store.db.selectFrom('messages').select('type').where('created_at', '=', old).execute();
    expect(types).toEqual([{ type: 'CHAT' }]);
  });

  it('declares no retention without MESSAGE_RETENTION', async () => {
    t = await startTestHub('sqlite');
    expect([...(await scrape(t)).keys()].some((k) => k.startsWith('hub_retention_'))).toBe(false);
  });
});
