// Dashboard messages over HTTP: both ingest forms, per-type payload checks, filters, paging,
// visibility of targeted messages.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

describeEachDriver('messages', (driver) => {
  let t: TestHub;
  let agent: { id: number; username: string; api_token: string };
  beforeAll(async () => {
    t = await startTestHub(driver);
    agent = await t.createAgent();
  });
  afterAll(() => t.stop());

  it('ingests the older {agent_id, level, content} form on behalf of an agent (admin)', async () => {
    const res = await t.api.post('/api/messages', { agent_id: agent.username, level: 'SUCCESS', content: 'initialised' }, { token: t.adminToken });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sender_id: agent.id,
      sender_name: agent.username,
      sender_role: 'AGENT',
      type: 'SYSTEM_LOG',
      payload: { level: 'SUCCESS', content: 'initialised' },
      agent_id: agent.username,
      level: 'SUCCESS',
      content: 'initialised',
    });
    expect(res.body).not.toHaveProperty('target_id');
    expect(res.body.id).toBeGreaterThan(0);
    expect(res.body.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const status = await t.api.get('/api/users/agents/status', { token: t.adminToken });
    expect(status.body.find((a: { id: number }) => a.id === agent.id).last_report).toBe('initialised');
  });

  it('ingests the typed form from an agent token, with the server owning sender fields', async () => {
    const res = await t.api.post(
      '/api/messages',
      {
        type: 'WEATHER_UPDATE',
        payload: { location: 'Paris', temperature_c: 12 },
        sender_id: 1,
        sender_name: 'forged',
        timestamp: '2000-01-01T00:00:00Z',
        id: 7,
      },
      { token: agent.api_token },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      sender_id: agent.id,
      sender_name: agent.username,
      type: 'WEATHER_UPDATE',
      payload: { location: 'Paris', temperature_c: 12 },
    });
    expect(res.body.timestamp).not.toBe('2000-01-01T00:00:00Z');
    expect(res.body.id).not.toBe(7);
  });

  it('refuses bad messages with 400 and stores nothing', async () => {
    const before = (await t.api.get('/api/messages', { token: t.adminToken })).headers.get('x-total-count');
    const cases: Array<[unknown, string]> = [
      [{ level: 'LOUD', content: 'x' }, 'level must be one of INFO, WARNING, ERROR, SUCCESS'],
      [{ level: 'INFO' }, 'content is required'],
      [{ type: 'CHAT', payload: 'hi' }, 'type must be one of SYSTEM_LOG, WEATHER_UPDATE, CODE_REVIEW, SECURITY_ALERT'],
      [{ type: 'SYSTEM_LOG', payload: 'text' }, 'payload must be a JSON object'],
      [{ type: 'SYSTEM_LOG' }, 'payload is required'],
      [{ type: 'SYSTEM_LOG', payload: { level: 'INFO' } }, 'payload.content is required'],
      [{ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'x' }, target_id: -4 }, 'target_id must be at least 1'],
      [{ type: 'CODE_REVIEW', payload: 12 }, 'payload must be a JSON object or a string'],
      [{ type: 'WEATHER_UPDATE', payload: { location: 'Oslo' } }, 'payload.temperature_c is required'],
      [{ type: 'SECURITY_ALERT', payload: { severity: 'urgent', content: 'x' } }, 'payload.severity must be one of low, medium, high, critical'],
      [{ type: 'CODE_REVIEW', payload: { verdict: 'approve', content: 'ok', score: 9 } }, 'unknown field: payload.score'],
    ];
    for (const [body, error] of cases) {
      const res = await t.api.post('/api/messages', body, { token: t.adminToken });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const unknownTarget = await t.api.post(
      '/api/messages',
      { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'x' }, target_id: 99999 },
      { token: t.adminToken },
    );
    expect(unknownTarget.status).toBe(404);
    const unknownAgent = await t.api.post('/api/messages', { agent_id: 'ghost', level: 'INFO', content: 'x' }, { token: t.adminToken });
    expect(unknownAgent.status).toBe(404);
    expect(unknownAgent.body).toEqual({ error: 'agent not found' });
    const after = (await t.api.get('/api/messages', { token: t.adminToken })).headers.get('x-total-count');
    expect(after).toBe(before);
  });

  it('lets a member post as themselves but not on behalf of an agent', async () => {
    const member = await t.createMember();
    const own = await t.api.post('/api/messages', { level: 'INFO', content: 'from a member' }, { token: member.token });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ sender_id: member.id, sender_role: 'MEMBER' });
    const forged = await t.api.post('/api/messages', { agent_id: agent.username, level: 'INFO', content: 'x' }, { token: member.token });
    expect(forged.status).toBe(403);
  });

  it('filters by agent, level, type and text (wildcards literal), newest first, with paging', async () => {
    const other = await t.createAgent();
    const post = (content: string, level = 'INFO', who = other.username) =>
      t.api.post('/api/messages', { agent_id: who, level, content }, { token: t.adminToken });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(`tick ${i}`)).body.id);
    await post('disk 100% full', 'ERROR');
    await post('disk 100 full', 'ERROR');

    const byAgent = await t.api.get(`/api/messages?agent_id=${other.username}`, { token: t.adminToken });
    expect(byAgent.headers.get('x-total-count')).toBe('7');
    expect(byAgent.body.map((m: { id: number }) => m.id)).toEqual([...byAgent.body.map((m: { id: number }) => m.id)].sort((a, b) => b - a));

    const errors = await t.api.get(`/api/messages?agent_id=${other.username}&level=ERROR`, { token: t.adminToken });
    expect(errors.body.map((m: { content: string }) => m.content)).toEqual(['disk 100 full', 'disk 100% full']);
    const literal = await t.api.get(`/api/messages?agent_id=${other.username}&q=${encodeURIComponent('100%')}`, { token: t.adminToken });
    expect(literal.body.map((m: { content: string }) => m.content)).toEqual(['disk 100% full']);
    const underscore = await t.api.get(`/api/messages?agent_id=${other.username}&q=_`, { token: t.adminToken });
    expect(underscore.body).toEqual([]);

    const page = await t.api.get(`/api/messages?agent_id=${other.username}&q=tick&limit=2`, { token: t.adminToken });
    expect(page.body.map((m: { id: number }) => m.id)).toEqual([ids[4], ids[3]]);
    const next = await t.api.get(`/api/messages?agent_id=${other.username}&q=tick&limit=2&before_id=${ids[3]}`, { token: t.adminToken });
    expect(next.body.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[1]]);
    const offset = await t.api.get(`/api/messages?agent_id=${other.username}&q=tick&limit=2&offset=4`, { token: t.adminToken });
    expect(offset.body.map((m: { id: number }) => m.id)).toEqual([ids[0]]);

    const weather = await t.api.get('/api/messages?type=WEATHER_UPDATE', { token: t.adminToken });
    expect(weather.body.length).toBeGreaterThan(0);
    expect(weather.body.every((m: { type: string }) => m.type === 'WEATHER_UPDATE')).toBe(true);

    for (const [query, error] of [
      ['?limit=201', 'limit must be at most 200'],
      ['?before_id=abc', 'before_id must be a number'],
      ['?offset=-1', 'offset must be at least 0'],
      ['?level=DEBUG', 'level must be one of INFO, WARNING, ERROR, SUCCESS'],
      ['?type=CHAT', 'type must be one of SYSTEM_LOG, WEATHER_UPDATE, CODE_REVIEW, SECURITY_ALERT'],
    ] as const) {
      const res = await t.api.get(`/api/messages${query}`, { token: t.adminToken });
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const defaults = await t.api.get('/api/messages', { token: t.adminToken });
    expect(defaults.body.length).toBeLessThanOrEqual(50);
  });

  it('shows targeted messages only to their target, their sender and admins', async () => {
    const alice = await t.createMember();
    const bob = await t.createMember();
    const sent = await t.api.post(
      '/api/messages',
      { type: 'SECURITY_ALERT', payload: { severity: 'high', content: 'for alice only' }, target_id: alice.id },
      { token: agent.api_token },
    );
    expect(sent.status).toBe(201);
    expect(sent.body.target_id).toBe(alice.id);
    const seen = async (token: string) =>
      ((await t.api.get('/api/messages?type=SECURITY_ALERT', { token })).body as Array<{ id: number }>).some((m) => m.id === sent.body.id);
    expect(await seen(alice.token)).toBe(true);
    expect(await seen(bob.token)).toBe(false);
    expect(await seen(t.adminToken)).toBe(true);
    expect(await seen(agent.api_token)).toBe(true);
  });
});
