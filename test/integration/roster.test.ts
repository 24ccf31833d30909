// The agent roster at scale (issue 35): GET /api/users/agents searched, filtered and paged on the hub
// (its answer without the new parameters unchanged), GET /api/users/agents/counts and the online
// series, their refusals of bad parameters, and what each role reads (agents only, never humans).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { wsClientPool } from '../helpers/wsClient.js';

describeEachDriver('agent roster', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  /** Registers `n` agents of a kind of their own (so a test's filters see only its agents). */
  async function agentsOfKind(n: number, prefix = 'roster') {
    const kind = uniqueName('kind');
    const made = [];
    for (let i = 0; i < n; i++) {
      const res = await t.api.post('/api/users/agents', { username: uniqueName(`${prefix}-${i}`), agent_kind: kind }, { token: t.adminToken });
      made.push(res.body as { id: number; username: string; api_token: string });
    }
    return { kind, made };
  }

  /** Connects the agent and waits until a watching human hears it ONLINE (stored before delivered). */
  async function bringOnline(agent: { id: number; api_token: string }) {
    const watcher = await clients.connect(t.adminToken);
    await clients.connect(agent.api_token);
    await watcher.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.online === true, 'the agent online');
  }

  it('answers a call without the new parameters exactly as before: the first 1000 machines by id, Butler included', async () => {
    await agentsOfKind(2);
    const plain = await t.api.get('/api/users/agents', { token: t.adminToken });
    const explicit = await t.api.get('/api/users/agents?page=1&limit=1000', { token: t.adminToken });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual(explicit.body);
    expect(plain.headers.get('x-total-count')).toBe(String(plain.body.length));
    const ids = plain.body.map((u: { id: number }) => u.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(plain.body.some((u: { role: string }) => u.role === 'BUTLER')).toBe(true);
  });

  it('searches by part of the username in any case, pages the matches and counts them all', async () => {
    const marker = uniqueName('Needle');
    for (let i = 0; i < 5; i++) await t.api.post('/api/users/agents', { username: `${marker}-${i}` }, { token: t.adminToken });
    // A human named alike is never part of the roster.
    await t.api.post('/api/users', { username: `${marker}-human`, password: 'password-123' }, { token: t.adminToken });
    const first = await t.api.get(`/api/users/agents?q=${marker.toLowerCase().slice(0, -3)}&limit=2&page=1`, { token: t.adminToken });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-total-count')).toBe('5');
    expect(first.body.map((u: { username: string }) => u.username)).toEqual([`${marker}-0`, `${marker}-1`]);
    const last = await t.api.get(`/api/users/agents?q=${marker.toUpperCase()}&limit=2&page=3`, { token: t.adminToken });
    expect(last.body.map((u: { username: string }) => u.username)).toEqual([`${marker}-4`]);
    expect(last.headers.get('x-total-count')).toBe('5');
    const member = await t.createMember();
    const seen = await t.api.get(`/api/users/agents?q=${marker}`, { token: member.token });
    expect(seen.body.map((u: { role: string }) => u.role)).toEqual(Array(5).fill('AGENT'));
  });

  it('filters by presence status and kind, leaving Butler out of a status filter', async () => {
    const { kind, made } = await agentsOfKind(3);
    await bringOnline(made[1]!);
    const online = await t.api.get(`/api/users/agents?status=online&kind=${kind}`, { token: t.adminToken });
    expect(online.status).toBe(200);
    expect(online.body.map((u: { id: number }) => u.id)).toEqual([made[1]!.id]);
    expect(online.headers.get('x-total-count')).toBe('1');
    const offline = await t.api.get(`/api/users/agents?status=OFFLINE&kind=${kind}`, { token: t.adminToken });
    expect(offline.body.map((u: { id: number }) => u.id)).toEqual([made[0]!.id, made[2]!.id]);
    const anyOnline = await t.api.get('/api/users/agents?status=ONLINE', { token: t.adminToken });
    expect(anyOnline.body.every((u: { role: string; online: boolean }) => u.role === 'AGENT' && u.online)).toBe(true);
    const ofKind = await t.api.get(`/api/users/agents?kind=${kind}&limit=2`, { token: t.adminToken });
    expect(ofKind.headers.get('x-total-count')).toBe('3');
    expect(ofKind.body).toHaveLength(2);
  });

  it('counts agents by presence and kind, the same for admin, member and agent, and never counts humans or Butler', async () => {
    const member = await t.createMember();
    const before = await t.api.get('/api/users/agents/counts', { token: t.adminToken });
    expect(before.status).toBe(200);
    const { kind, made } = await agentsOfKind(3);
    await t.createMember();
    await bringOnline(made[0]!);
    const counts = await t.api.get('/api/users/agents/counts', { token: t.adminToken });
    expect(counts.body.total).toBe(before.body.total + 3);
    expect(counts.body.online).toBe(before.body.online + 1);
    expect(counts.body.offline).toBe(counts.body.total - counts.body.online);
    expect(counts.body.by_kind).toContainEqual({ kind, count: 3 });
    const statusSum = counts.body.by_status.reduce((n: number, s: { count: number }) => n + s.count, 0);
    expect(statusSum).toBe(counts.body.total);
    const listedAgents = await t.api.get('/api/users/agents?exclude_role=BUTLER&limit=1', { token: t.adminToken });
    expect(Number(listedAgents.headers.get('x-total-count'))).toBe(counts.body.total);
    for (const token of [member.token, made[2]!.api_token]) {
      const other = await t.api.get('/api/users/agents/counts', { token });
      expect(other.status).toBe(200);
      expect(other.body).toEqual(counts.body);
    }
    expect((await t.api.get('/api/users/agents/counts')).status).toBe(401);
  });

  it('draws agents online over time: the sample taken at start, then now as the last point', async () => {
    const { made } = await agentsOfKind(1);
    await bringOnline(made[0]!);
    const counts = (await t.api.get('/api/users/agents/counts', { token: t.adminToken })).body;
    for (const token of [t.adminToken, (await t.createMember()).token, made[0]!.api_token]) {
      const res = await t.api.get('/api/stats/online?minutes=60', { token });
      expect(res.status).toBe(200);
      expect(res.body.interval_ms).toBe(60_000);
      expect(res.body.times.length).toBeGreaterThanOrEqual(2);
      expect(res.body.online).toHaveLength(res.body.times.length);
      expect(res.body.online.at(-1)).toBe(counts.online);
      expect(res.body.registered.at(-1)).toBe(counts.total);
      expect(Date.parse(res.body.known_from)).toBeLessThanOrEqual(Date.parse(res.body.times[0]));
    }
    expect((await t.api.get('/api/stats/online')).status).toBe(401);
  });

  it('reads one agent by id, Butler too; an id it does not know, or a human, is an empty page', async () => {
    const { made } = await agentsOfKind(2);
    const one = await t.api.get(`/api/users/agents?id=${made[1]!.id}`, { token: t.adminToken });
    expect(one.status).toBe(200);
    expect(one.body.map((u: { id: number; username: string }) => [u.id, u.username])).toEqual([[made[1]!.id, made[1]!.username]]);
    expect(one.headers.get('x-total-count')).toBe('1');
    const butler = await t.api.get('/api/users/butler', { token: t.adminToken });
    expect((await t.api.get(`/api/users/agents?id=${butler.body.id}`, { token: t.adminToken })).body).toHaveLength(1);
    const member = await t.createMember();
    for (const id of [member.id, 999_999_999]) {
      const none = await t.api.get(`/api/users/agents?id=${id}`, { token: t.adminToken });
      expect(none.status).toBe(200);
      expect(none.body).toEqual([]);
      expect(none.headers.get('x-total-count')).toBe('0');
    }
    // Combined with a filter it must match both.
    const both = await t.api.get(`/api/users/agents?id=${made[1]!.id}&status=ONLINE`, { token: t.adminToken });
    expect(both.body).toEqual([]);
  });

  it('refuses bad parameters with a 400 naming the field', async () => {
    const bad: Array<[string, RegExp]> = [
      ['/api/users/agents?status=on-line', /status/],
      ['/api/users/agents?limit=0', /limit/],
      ['/api/users/agents?limit=1001', /limit/],
      ['/api/users/agents?page=-1', /page/],
      [`/api/users/agents?q=${'x'.repeat(65)}`, /q/],
      [`/api/users/agents?kind=${'k'.repeat(65)}`, /kind/],
      ['/api/users/agents?id=0', /id/],
      ['/api/users/agents?id=abc', /id/],
      ['/api/stats/online?minutes=0', /minutes/],
      ['/api/stats/online?minutes=1441', /minutes/],
      ['/api/stats/online?minutes=soon', /minutes/],
    ];
    for (const [path, field] of bad) {
      const res = await t.api.get(path, { token: t.adminToken });
      expect(res.status, path).toBe(400);
      expect(res.body.error, path).toMatch(field);
    }
  });
});
