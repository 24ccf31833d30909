// The chart series (GET /api/stats/...) against rows this test inserts into a real store, on both
// drivers: every number an endpoint answers is checked against what was inserted, and each route's
// access level against a whole hub, refusals included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Insertable } from 'kysely';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { concrete, STATS_ROUTES } from '../helpers/routes.js';
import { SAMPLE_QUERIES } from '../helpers/routeSamples.js';
import { connectWs } from '../helpers/wsClient.js';
import type { MessagesTable } from '../../src/store/schema.js';
import { toSeries, windowOf } from '../../src/services/statsSeries.js';

const MINUTE = 60_000;
const ago = (minutes: number, seconds = 0) => new Date(Date.now() - minutes * MINUTE - seconds * 1000).toISOString();
const minuteOf = (iso: string) => `${iso.slice(0, 16)}:00.000Z`;

describe('series buckets (pure)', () => {
  it('spreads per-minute rows into fixed buckets, zeros where nothing happened, dropping rows outside', () => {
    const window = windowOf('2026-01-05T10:10:30.000Z', 10, 5);
    const s = toSeries(window, [
      { minute: '2026-01-05T10:01', key: 'a', n: 2 },
      { minute: '2026-01-05T10:04', key: 'a', n: 1 },
      { minute: '2026-01-05T10:09', key: 'b', n: 4 },
      { minute: '2026-01-05T09:59', key: 'b', n: 9 },
    ]);
    expect(s.from).toBe('2026-01-05T10:05:00.000Z');
    expect(s.bucket_seconds).toBe(300);
    // The window starts at the first whole bucket after now − 10 min (10:00:30 → 10:05).
    expect(s.times).toEqual(['2026-01-05T10:05:00.000Z', '2026-01-05T10:10:00.000Z']);
    expect(s.series).toEqual([{ name: 'b', counts: [4, 0] }]);
    expect(s.total).toEqual([4, 0]);
  });
});

describeEachDriver('stats series', (driver) => {
  let t: TestHub;
  let x: { id: number; username: string; api_token: string };
  let y: { id: number; username: string; api_token: string };
  let member: { id: number; username: string; token: string };
  let seq = 0;

  async function insert(row: Partial<Insertable<MessagesTable>> & { sender: { id: number; username: string }; role?: string }): Promise<number> {
    const { sender, role, ...rest } = row;
    const inserted = await t.hub.store.db
      .insertInto('messages')
      .values({
        type: 'SYSTEM_LOG',
        sender_id: sender.id,
        sender_name: sender.username,
        sender_role: role ?? 'AGENT',
        target_id: null,
        target_role: null,
        payload: JSON.stringify({ level: 'INFO', content: `row ${++seq}` }),
        level: null,
        content: `row ${seq}`,
        created_at: new Date().toISOString(),
        ...rest,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  beforeAll(async () => {
    t = await startTestHub(driver);
    x = await t.createAgent();
    y = await t.createAgent();
    member = await t.createMember();
  });
  afterAll(() => t.stop());

  it('GET /api/stats/messages: per minute per sender, within the window, with filters and member visibility', async () => {
    const two = ago(2);
    const five = ago(5);
    const seven = ago(7);
    for (let i = 0; i < 3; i++) await insert({ sender: x, created_at: two, level: 'INFO' });
    await insert({ sender: x, created_at: five, level: 'ERROR' });
    await insert({ sender: y, created_at: two, type: 'WEATHER_UPDATE', payload: JSON.stringify({ location: 'Oslo', temperature_c: 1 }) });
    await insert({ sender: y, created_at: two, type: 'WEATHER_UPDATE', payload: JSON.stringify({ location: 'Oslo', temperature_c: 2 }) });
    await insert({ sender: x, created_at: ago(90), level: 'INFO' }); // before the window
    await insert({ sender: x, created_at: two, type: 'CHAT', payload: '"hi"' }); // chat is not dashboard telemetry
    await insert({ sender: x, created_at: seven, level: 'INFO', target_id: 1, target_role: 'ADMIN' }); // only the admin sees it

    const res = await t.api.get('/api/stats/messages?minutes=60', { token: t.adminToken });
    expect(res.status).toBe(200);
    const at = (iso: string) => res.body.times.indexOf(minuteOf(iso));
    expect(res.body.times).toHaveLength(60);
    expect(res.body.bucket_seconds).toBe(60);
    const xs = res.body.series.find((s: { name: string }) => s.name === x.username).counts as number[];
    const ys = res.body.series.find((s: { name: string }) => s.name === y.username).counts as number[];
    expect(xs[at(two)]).toBe(3);
    expect(xs[at(five)]).toBe(1);
    expect(xs[at(seven)]).toBe(1);
    expect(xs.reduce((a, b) => a + b, 0)).toBe(5);
    expect(ys[at(two)]).toBe(2);
    expect(ys.reduce((a, b) => a + b, 0)).toBe(2);
    expect((res.body.total as number[]).reduce((a, b) => a + b, 0)).toBe(7);

    const errors = await t.api.get('/api/stats/messages?level=ERROR', { token: t.adminToken });
    expect(errors.body.series).toEqual([{ name: x.username, counts: expect.any(Array) }]);
    expect(errors.body.total.reduce((a: number, b: number) => a + b, 0)).toBe(1);
    const weather = await t.api.get(`/api/stats/messages?type=WEATHER_UPDATE&agent_id=${y.username}`, { token: t.adminToken });
    expect(weather.body.series.map((s: { name: string }) => s.name)).toEqual([y.username]);
    const byText = await t.api.get(`/api/stats/messages?q=${encodeURIComponent(`row ${seq - 1}`)}`, { token: t.adminToken });
    expect(byText.body.total.reduce((a: number, b: number) => a + b, 0)).toBe(0); // the CHAT row's text: not telemetry

    const asMember = await t.api.get('/api/stats/messages', { token: member.token });
    expect(asMember.body.total.reduce((a: number, b: number) => a + b, 0)).toBe(6);
    const wide = await t.api.get('/api/stats/messages?minutes=120&bucket_minutes=30', { token: t.adminToken });
    expect(wide.body.bucket_seconds).toBe(1800);
    expect(wide.body.total.reduce((a: number, b: number) => a + b, 0)).toBe(8);
    expect((await t.api.get('/api/stats/messages?minutes=0', { token: t.adminToken })).status).toBe(400);
    // A day by the minute would be 1440 numbers per sender: the bucket must widen.
    expect(await t.api.get('/api/stats/messages?minutes=1440', { token: t.adminToken })).toMatchObject({
      status: 400,
      body: { error: 'bucket_minutes must be at least 4 for 1440 minutes (at most 360 buckets)' },
    });
    expect((await t.api.get('/api/stats/messages?minutes=1440&bucket_minutes=4', { token: t.adminToken })).body.times).toHaveLength(360);
  });

  it('GET /api/stats/reports: levels, verdicts and severities within the window', async () => {
    const now = ago(0, 5);
    const review = (verdict: string) => JSON.stringify({ verdict, content: `review ${verdict}` });
    await insert({ sender: y, type: 'CODE_REVIEW', payload: review('approve'), created_at: now });
    await insert({ sender: y, type: 'CODE_REVIEW', payload: review('request_changes'), created_at: now });
    await insert({ sender: y, type: 'CODE_REVIEW', payload: review('request_changes'), created_at: now });
    await insert({ sender: y, type: 'CODE_REVIEW', payload: review('comment'), created_at: ago(200) });
    await insert({ sender: y, type: 'SECURITY_ALERT', payload: JSON.stringify({ severity: 'high', content: 'a secret' }), created_at: now });
    await insert({ sender: y, type: 'SECURITY_ALERT', payload: '"older agents send text"', created_at: now });
    const res = await t.api.get('/api/stats/reports?minutes=60', { token: t.adminToken });
    expect(res.status).toBe(200);
    // SYSTEM_LOG rows of the previous test inside the hour: 3 INFO (2 min), 1 ERROR (5 min), 1 INFO to the admin (7 min).
    expect(res.body.levels).toEqual({ INFO: 4, ERROR: 1 });
    expect(res.body.verdicts).toEqual({ approve: 1, request_changes: 2 });
    expect(res.body.severities).toEqual({ high: 1, unknown: 1 });
    const day = await t.api.get('/api/stats/reports', { token: t.adminToken });
    expect(day.body.verdicts).toEqual({ approve: 1, request_changes: 2, comment: 1 });
    expect(day.body.levels).toEqual({ INFO: 5, ERROR: 1 });
  });

  it('GET /api/stats/report-fields: numeric fields per location over time, findings counted', async () => {
    const agent = await t.createAgent();
    const w = (location: string, temperature_c: number, extra: object = {}) => JSON.stringify({ location, temperature_c, ...extra });
    await insert({ sender: agent, type: 'WEATHER_UPDATE', payload: w('Oslo', -3.5, { humidity_pct: 80 }), created_at: ago(30) });
    await insert({ sender: agent, type: 'WEATHER_UPDATE', payload: w('Bergen', 4.25), created_at: ago(20) });
    await insert({ sender: agent, type: 'WEATHER_UPDATE', payload: w('Oslo', -2), created_at: ago(10) });
    await insert({ sender: agent, type: 'WEATHER_UPDATE', payload: w('Oslo', 99), created_at: ago(3000) }); // outside the day
    const finding = { file: 'a.ts', severity: 'warning', rule: 'no-console', message: 'console' };
    await insert({
      sender: agent,
      type: 'CODE_REVIEW',
      payload: JSON.stringify({ verdict: 'comment', content: 'two findings', files_reviewed: 3, findings: [finding, finding] }),
      created_at: ago(5),
    });
    const res = await t.api.get(`/api/stats/report-fields?agent_id=${agent.username}&type=WEATHER_UPDATE`, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(res.body.series.map((s: { name: string; points: { v: number }[] }) => [s.name, s.points.map((p) => p.v)])).toEqual([
      ['Bergen · temperature_c', [4.25]],
      ['Oslo · humidity_pct', [80]],
      ['Oslo · temperature_c', [-3.5, -2]],
    ]);
    const reviews = await t.api.get(`/api/stats/report-fields?agent_id=${agent.username}&type=CODE_REVIEW`, { token: t.adminToken });
    expect(reviews.body.series).toEqual([
      { name: 'files_reviewed', points: [{ t: expect.any(String), v: 3 }] },
      { name: 'findings', points: [{ t: expect.any(String), v: 2 }] },
    ]);
    const newest = await t.api.get(`/api/stats/report-fields?agent_id=${agent.username}&type=WEATHER_UPDATE&limit=1`, { token: t.adminToken });
    expect(newest.body.series).toEqual([{ name: 'Oslo · temperature_c', points: [{ t: expect.any(String), v: -2 }] }]);
    expect((await t.api.get('/api/stats/report-fields?type=WEATHER_UPDATE', { token: t.adminToken })).status).toBe(400);
  });

  it('GET /api/stats/reports and /report-fields: a report sent to one person counts for that person and admins only', async () => {
    const agent = await t.createAgent();
    const target = await t.createMember();
    const alert = JSON.stringify({ severity: 'critical', content: 'for one member only' });
    await insert({ sender: agent, type: 'SECURITY_ALERT', payload: alert, target_id: target.id, target_role: 'MEMBER', created_at: ago(1) });
    const weather = JSON.stringify({ location: 'Private Cove', temperature_c: 12 });
    await insert({ sender: agent, type: 'WEATHER_UPDATE', payload: weather, target_id: target.id, target_role: 'MEMBER', created_at: ago(1) });

    const critical = async (token: string) =>
      ((await t.api.get('/api/stats/reports?minutes=60', { token })).body.severities as Record<string, number>)['critical'];
    expect(await critical(member.token)).toBeUndefined();
    expect(await critical(x.api_token)).toBeUndefined();
    expect(await critical(target.token)).toBe(1);
    expect(await critical(t.adminToken)).toBe(1);

    const fields = async (token: string) =>
      ((await t.api.get(`/api/stats/report-fields?agent_id=${agent.username}&type=WEATHER_UPDATE`, { token })).body.series as { name: string }[]).map(
        (s) => s.name,
      );
    expect(await fields(member.token)).toEqual([]);
    expect(await fields(x.api_token)).toEqual([]);
    expect(await fields(target.token)).toEqual(['Private Cove · temperature_c']);
    expect(await fields(t.adminToken)).toEqual(['Private Cove · temperature_c']);
  });

  it('GET /api/stats/connector: the current connector’s outcomes per minute; lifecycle actions and other connectors left out', async () => {
    const empty = await t.api.get('/api/stats/connector', { token: t.adminToken });
    expect(empty.body.series.map((s: { name: string; counts: number[] }) => [s.name, s.counts.reduce((a, b) => a + b, 0)])).toEqual([
      ['accepted', 0],
      ['filtered', 0],
      ['sent', 0],
      ['failed', 0],
    ]);
    const now = new Date().toISOString();
    const connector = (current: number) =>
      t.hub.store.db
        .insertInto('connectors')
        .values({
          connector_name: `c${current}`,
          app_id: 'cli_test',
          allow_dm: 1,
          allow_group_mention: 1,
          mention_required: 0,
          prefix_command: '',
          ignore_bot_messages: 1,
          rate_limit_per_minute: 60,
          allowed_chat_ids: '[]',
          user_whitelist: '[]',
          callback_url: '',
          state: 'enabled',
          is_current: current,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const old = await connector(0);
    const cur = await connector(1);
    const one = ago(1);
    const four = ago(4);
    const log = (connectorId: number, action: string, created_at: string) =>
      t.hub.store.db
        .insertInto('connector_logs')
        .values({ connector_id: connectorId, level: 'INFO', action, detail: action, trace_id: null, created_at })
        .execute();
    await log(Number(cur.id), 'inbound_accepted', one);
    await log(Number(cur.id), 'inbound_accepted', one);
    await log(Number(cur.id), 'inbound_filtered', four);
    await log(Number(cur.id), 'inbound_refused', four);
    for (let i = 0; i < 3; i++) await log(Number(cur.id), 'outbound_sent', one);
    await log(Number(cur.id), 'outbound_failed', four);
    await log(Number(cur.id), 'verify', one);
    await log(Number(cur.id), 'outbound_sent', ago(120));
    await log(Number(old.id), 'outbound_sent', one);
    const res = await t.api.get('/api/stats/connector?minutes=60', { token: t.adminToken });
    expect(res.status).toBe(200);
    const at = (iso: string) => res.body.times.indexOf(minuteOf(iso));
    const by = Object.fromEntries(res.body.series.map((s: { name: string; counts: number[] }) => [s.name, s.counts]));
    expect(Object.keys(by)).toEqual(['accepted', 'filtered', 'sent', 'failed']);
    expect([by.accepted[at(one)], by.filtered[at(four)], by.sent[at(one)], by.failed[at(four)]]).toEqual([2, 2, 3, 1]);
    expect(res.body.total.reduce((a: number, b: number) => a + b, 0)).toBe(8);
  });

  it('GET /api/stats/unanswered: per machine peer the oldest message with no reply since, in one answer', async () => {
    const human = await t.createMember();
    const a = await t.createAgent();
    const butler = (await t.api.get('/api/users/butler', { token: t.adminToken })).body as { id: number; username: string };
    const chat = (from: { id: number; username: string }, fromRole: string, to: number, toRole: string, text: string) =>
      insert({ sender: from, role: fromRole, type: 'CHAT', target_id: to, target_role: toRole, payload: JSON.stringify(text), content: text });
    expect((await t.api.get('/api/stats/unanswered', { token: human.token })).body).toEqual({ oldest: null, conversations: 0, by_peer: [] });
    await chat(human, 'MEMBER', a.id, 'AGENT', 'first to a');
    await chat(a, 'AGENT', human.id, 'MEMBER', 'a answers');
    const toButler = await chat(human, 'MEMBER', butler.id, 'BUTLER', 'to Butler');
    const second = await chat(human, 'MEMBER', a.id, 'AGENT', 'second to a');
    await chat(human, 'MEMBER', a.id, 'AGENT', 'third to a');
    await chat(human, 'MEMBER', member.id, 'MEMBER', 'to a human: never waits');
    await chat(a, 'AGENT', member.id, 'MEMBER', 'a answers someone else');
    const res = await t.api.get('/api/stats/unanswered', { token: human.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      oldest: { peer_id: butler.id, id: toButler, text: 'to Butler' },
      conversations: 2,
      by_peer: [
        { peer_id: butler.id, id: toButler, waiting: 1 },
        { peer_id: a.id, id: second, waiting: 2 },
      ],
    });
    await chat(butler, 'BUTLER', human.id, 'MEMBER', 'Butler answers');
    const after = await t.api.get('/api/stats/unanswered', { token: human.token });
    expect(after.body).toMatchObject({ oldest: { peer_id: a.id, id: second, text: 'second to a' }, conversations: 1 });
  });

  it('GET /api/stats/presence and /runtime: an agent going online and offline, and the sockets open now', async () => {
    const watcher = await connectWs(t.url, t.adminToken);
    const agent = await t.createAgent();
    const socket = await connectWs(t.url, agent.api_token);
    await watcher.nextWhere((f) => f.type === 'PRESENCE' && f.payload?.user_id === agent.id && f.payload?.status === 'ONLINE', 'agent online');
    const strip = async () =>
      (
        (await t.api.get('/api/stats/presence?hours=1', { token: member.token })).body.agents as { id: number; online: { from: string; to: string | null }[] }[]
      ).find((a) => a.id === agent.id)!;
    const online = await strip();
    expect(online.online).toEqual([{ from: expect.any(String), to: null }]);
    const runtime = await t.api.get('/api/stats/runtime', { token: t.adminToken });
    expect(runtime.status).toBe(200);
    expect(runtime.body.samples.at(-1)).toMatchObject({ sockets: 2, queue_depth: expect.any(Number), loop_lag_ms: expect.any(Number) });
    await socket.close();
    await watcher.nextWhere((f) => f.type === 'PRESENCE' && f.payload?.user_id === agent.id && f.payload?.status === 'OFFLINE', 'agent offline');
    const offline = await strip();
    expect(offline.online).toHaveLength(1);
    expect(Date.parse(offline.online[0]!.to!)).toBeGreaterThanOrEqual(Date.parse(online.online[0]!.from));
    expect((await strip()).online).toEqual(offline.online);
    await watcher.close();
  });

  describe.each(STATS_ROUTES)('access: $method $path ($access)', (route) => {
    const path = () => concrete(route.path) + (SAMPLE_QUERIES[`${route.method} ${route.path}`] ?? '');
    it('anonymous 401; member, agent and admin as the level says', async () => {
      expect(await t.api.get(path())).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
      const asMember = await t.api.get(path(), { token: member.token });
      const asAgent = await t.api.get(path(), { token: x.api_token });
      const asAdmin = await t.api.get(path(), { token: t.adminToken });
      expect(asAdmin.status).toBe(200);
      if (route.access === 'admin') {
        expect(asMember).toMatchObject({ status: 403, body: { error: 'admin access required' } });
        expect(asAgent).toMatchObject({ status: 403, body: { error: 'admin access required' } });
      } else if (route.access === 'human') {
        expect(asMember.status).toBe(200);
        expect(asAgent).toMatchObject({ status: 403, body: { error: route.machineRefusal } });
      } else {
        expect(asMember.status).toBe(200);
        expect(asAgent.status).toBe(200);
      }
    });
  });
});
