// Machine users: registration with a high-entropy token, listing with presence and never the
// token, status list, Butler's profile, token check and rotation, deletion.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';

describeEachDriver('agents', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('registers an agent and returns its generated token once', async () => {
    const username = uniqueName('weather');
    const res = await t.api.post(
      '/api/users/agents',
      { username, agent_kind: 'weather', runtime_kind: 'python', description: 'Reports the weather' },
      { token: t.adminToken },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      username,
      role: 'AGENT',
      actor_type: 'SYSTEM',
      agent_kind: 'weather',
      runtime_kind: 'python',
      description: 'Reports the weather',
      status: 'OFFLINE',
      online: false,
      last_seen_at: null,
      last_report: null,
    });
    // 32 random bytes in base64url.
    expect(res.body.api_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.token_hint).toBe(`${res.body.api_token.slice(0, 4)}...${res.body.api_token.slice(-4)}`);
    expect(Date.parse(res.body.token_updated_at)).not.toBeNaN();
  });

  it("gives an agent registered without kinds the older hub's defaults, generic over websocket", async () => {
    const plain = await t.api.post('/api/users/agents', { username: uniqueName('plain') }, { token: t.adminToken });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ agent_kind: 'generic', runtime_kind: 'websocket' });
    const blank = await t.api.post('/api/users/agents', { username: uniqueName('blank'), agent_kind: ' ', runtime_kind: '' }, { token: t.adminToken });
    expect(blank.body).toMatchObject({ agent_kind: 'generic', runtime_kind: 'websocket' });
    const listed = await t.api.get(`/api/users/${plain.body.id}`, { token: t.adminToken });
    expect(listed.body).toMatchObject({ agent_kind: 'generic', runtime_kind: 'websocket' });
  });

  it('never stores the raw token in the database', async () => {
    const agent = await t.createAgent();
    const rows = await t.hub.store.db.selectFrom('machine_credentials').selectAll().where('user_id', '=', agent.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(agent.api_token);
    expect(JSON.stringify(rows)).not.toContain(agent.api_token.slice(4, -4));
  });

  it('accepts a token the admin chooses, and refuses one already in use', async () => {
    const chosen = `custom-token-${uniqueName('t')}`;
    const res = await t.api.post('/api/users/agents', { username: uniqueName('custom'), api_token: chosen }, { token: t.adminToken });
    expect(res.status).toBe(201);
    expect(res.body.api_token).toBe(chosen);
    const again = await t.api.post('/api/users/agents', { username: uniqueName('custom'), api_token: chosen }, { token: t.adminToken });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'api_token is already in use by another agent' });
    const weak = await t.api.post('/api/users/agents', { username: uniqueName('custom'), api_token: 'short' }, { token: t.adminToken });
    expect(weak.status).toBe(400);
    expect(weak.body).toEqual({ error: 'api_token must be at least 16 characters' });
  });

  it('lets exactly one of several racing registrations of a name win; the rest get 409', async () => {
    const username = uniqueName('race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => t.api.post('/api/users/agents', { username }, { token: t.adminToken })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.body).toEqual({ error: 'username already exists' });
    const listed = await t.api.get(`/api/users/agents?q=${username}`, { token: t.adminToken });
    expect(listed.body).toHaveLength(1);
  });

  it('refuses a missing or duplicate username', async () => {
    const missing = await t.api.post('/api/users/agents', {}, { token: t.adminToken });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'username is required' });
    const agent = await t.createAgent();
    const dup = await t.api.post('/api/users/agents', { username: agent.username }, { token: t.adminToken });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'username already exists' });
    const human = await t.api.post('/api/users/agents', { username: 'admin' }, { token: t.adminToken });
    expect(human.status).toBe(409);
  });

  it('lists agents and Butler with presence fields and hints, never tokens', async () => {
    const agent = await t.createAgent();
    const res = await t.api.get('/api/users/agents', { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-total-count'))).toBe(res.body.length);
    const roles = new Set(res.body.map((a: { role: string }) => a.role));
    expect([...roles].sort()).toEqual(['AGENT', 'BUTLER']);
    const listed = res.body.find((a: { id: number }) => a.id === agent.id);
    expect(listed).toMatchObject({ username: agent.username, status: 'OFFLINE', online: false, last_seen_at: null, last_report: null });
    expect(listed.token_hint).toBe(`${agent.api_token.slice(0, 4)}...${agent.api_token.slice(-4)}`);
    for (const item of res.body) {
      expect(Object.keys(item)).not.toContain('api_token');
      expect(typeof item.online).toBe('boolean');
    }
    expect(JSON.stringify(res.body)).not.toContain(agent.api_token);

    const noButler = await t.api.get('/api/users/agents?exclude_role=BUTLER', { token: t.adminToken });
    expect(noButler.body.every((a: { role: string }) => a.role === 'AGENT')).toBe(true);
    const byName = await t.api.get(`/api/users/agents?q=${agent.username.toUpperCase()}`, { token: t.adminToken });
    expect(byName.body.map((a: { id: number }) => a.id)).toEqual([agent.id]);
    const wildcard = await t.api.get('/api/users/agents?q=%25', { token: t.adminToken });
    expect(wildcard.body).toEqual([]);
  });

  it('lists runtime status of AGENT users only', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const res = await t.api.get('/api/users/agents/status', { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body.every((a: { role: string }) => a.role === 'AGENT')).toBe(true);
    expect(res.body.find((a: { id: number }) => a.id === agent.id)).toEqual({
      id: agent.id,
      username: agent.username,
      role: 'AGENT',
      status: 'OFFLINE',
      online: false,
      last_seen_at: null,
      last_report: null,
    });
  });

  it("keeps last_seen_at null for an agent that never connected when an admin posts a log in its name; the agent's own report sets it", async () => {
    const agent = await t.createAgent();
    const listed = async () => {
      const all = (await t.api.get('/api/users/agents/status', { token: t.adminToken })).body as Array<{ id: number }>;
      return all.find((a) => a.id === agent.id);
    };
    const onBehalf = await t.api.post('/api/messages', { agent_id: agent.username, level: 'INFO', content: 'seeded by an admin' }, { token: t.adminToken });
    expect(onBehalf).toMatchObject({ status: 201, body: { sender_id: agent.id } });
    // The log is still the agent's latest report; the agent itself was never seen.
    expect(await listed()).toMatchObject({ online: false, last_report: 'seeded by an admin', last_seen_at: null });
    const profile = await t.api.get(`/api/users/${agent.id}`, { token: t.adminToken });
    expect(profile.body).toMatchObject({ last_seen_at: null, last_report: 'seeded by an admin' });

    const own = await t.api.post('/api/messages', { level: 'INFO', content: 'reported by the agent' }, { token: agent.api_token });
    expect(own.status).toBe(201);
    expect(await listed()).toMatchObject({ last_report: 'reported by the agent', last_seen_at: own.body.timestamp });

    // A later log in its name changes the report, never the time it was last seen.
    await t.api.post('/api/messages', { agent_id: agent.username, level: 'WARNING', content: 'seeded again' }, { token: t.adminToken });
    expect(await listed()).toMatchObject({ last_report: 'seeded again', last_seen_at: own.body.timestamp });
  });

  it('shows Butler as id 2 and ONLINE while the hub runs', async () => {
    const member = await t.createMember();
    const res = await t.api.get('/api/users/butler', { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 2, username: 'Butler', role: 'BUTLER', actor_type: 'SYSTEM', status: 'ONLINE', online: true });
    expect(res.body).not.toHaveProperty('api_token');
  });

  it('checks a token with test-connection', async () => {
    const agent = await t.createAgent();
    const ok = await t.api.post('/api/users/agents/test-connection', { api_token: agent.api_token }, { token: t.adminToken });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ok: true, message: `api_token belongs to ${agent.username}`, agent_id: agent.id, agent_name: agent.username });
    const bad = await t.api.post('/api/users/agents/test-connection', { api_token: 'not-registered-anywhere' }, { token: t.adminToken });
    expect(bad.status).toBe(200);
    expect(bad.body).toEqual({ ok: false, message: 'api_token is not registered to any agent' });
    const missing = await t.api.post('/api/users/agents/test-connection', {}, { token: t.adminToken });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'api_token is required' });
  });

  it('rotates a token: the old one stops working, the new one is returned once', async () => {
    const agent = await t.createAgent();
    const res = await t.api.patch(`/api/users/agents/${agent.id}/token`, undefined, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, agent_id: agent.id });
    expect(res.body.api_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.api_token).not.toBe(agent.api_token);
    expect(res.body.token_hint).toBe(`${res.body.api_token.slice(0, 4)}...${res.body.api_token.slice(-4)}`);
    const old = await t.api.post('/api/users/agents/test-connection', { api_token: agent.api_token }, { token: t.adminToken });
    expect(old.body.ok).toBe(false);
    const fresh = await t.api.post('/api/users/agents/test-connection', { api_token: res.body.api_token }, { token: t.adminToken });
    expect(fresh.body.ok).toBe(true);

    const chosen = `rotated-${uniqueName('token')}`;
    const custom = await t.api.patch(`/api/users/agents/${agent.id}/token`, { api_token: chosen }, { token: t.adminToken });
    expect(custom.body.api_token).toBe(chosen);
    const other = await t.createAgent();
    const clash = await t.api.patch(`/api/users/agents/${other.id}/token`, { api_token: chosen }, { token: t.adminToken });
    expect(clash.status).toBe(409);
    expect((await t.api.patch('/api/users/agents/999999/token', {}, { token: t.adminToken })).status).toBe(404);
    expect((await t.api.patch('/api/users/1/token', {}, { token: t.adminToken })).status).toBe(404);
  });

  it('deletes an agent with its credentials; Butler and humans are not agents', async () => {
    const agent = await t.createAgent();
    const res = await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    const list = await t.api.get('/api/users/agents', { token: t.adminToken });
    expect(list.body.map((a: { id: number }) => a.id)).not.toContain(agent.id);
    expect((await t.api.post('/api/users/agents/test-connection', { api_token: agent.api_token }, { token: t.adminToken })).body.ok).toBe(false);
    const again = await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'agent not found' });
    const butler = await t.api.delete('/api/users/agents/2', { token: t.adminToken });
    expect(butler.status).toBe(403);
    expect((await t.api.delete('/api/users/agents/1', { token: t.adminToken })).status).toBe(404);
    expect((await t.api.delete('/api/users/agents/abc', { token: t.adminToken })).status).toBe(400);
  });
});
