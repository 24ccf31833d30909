// Actor inspection over HTTP: admins see the live actor system and each actor's snapshot (the same
// snapshots tests read from hub.inspection); members and agents get 403; no snapshot holds a secret.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool } from '../helpers/wsClient.js';

describeEachDriver('actor inspection', (driver) => {
  let t: TestHub;
  let member: { id: number; token: string };
  let agent: { id: number; api_token: string };
  const clients = wsClientPool(() => t.url);
  beforeAll(async () => {
    t = await startTestHub(driver);
    member = await t.createMember();
    agent = await t.createAgent();
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('refuses members and agents with 403', async () => {
    for (const path of ['/api/admin/actors', '/api/admin/actors/router']) {
      for (const token of [member.token, agent.api_token]) {
        const res = await t.api.get(path, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'admin access required' });
      }
    }
  });

  it("shows an admin their own socket's actor in open, with its snapshot", async () => {
    await clients.connect(t.adminToken);
    const summary = await t.api.get(`/api/admin/actors?user_id=1`, { token: t.adminToken });
    expect(summary.status).toBe(200);
    const mine = summary.body.connections.items;
    expect(mine).toEqual([{ id: expect.stringMatching(/^connection-\d+$/), state: 'open.live', user_id: 1, username: 'admin', role: 'ADMIN' }]);
    expect(summary.body.connections.by_state_and_role.open.ADMIN).toBe(1);
    expect(summary.body.router).toMatchObject({ id: 'router', state: 'running', endpoints: 1, by_role: { ADMIN: 1 } });
    // No connector runs on a fresh hub.
    expect(summary.body.connector).toMatchObject({ id: 'connector', state: 'idle', connector_id: null, connection: 'stopped' });

    const snapshot = await t.api.get(`/api/admin/actors/${mine[0].id}`, { token: t.adminToken });
    expect(snapshot.status).toBe(200);
    expect(snapshot.body).toMatchObject({
      id: mine[0].id,
      kind: 'connection',
      state: 'open.live',
      status: 'active',
      context: { user: { id: 1, username: 'admin', role: 'ADMIN' }, close_code: null, outlet: { closed: false } },
    });
    // What the API shows is what a test reads from the hub.
    expect(t.hub.inspection.snapshot(mine[0].id)).toEqual(snapshot.body);
  });

  it('counts connection actors by state and role and the router by users with several sockets', async () => {
    await clients.connect(member.token);
    await clients.connect(member.token);
    await clients.connect(agent.api_token);
    const { body } = await t.api.get('/api/admin/actors', { token: t.adminToken });
    expect(body.connections.by_state_and_role.open).toEqual({ MEMBER: 2, AGENT: 1 });
    expect(body.connections.total).toBe(3);
    expect(body.router.multi_socket_users).toEqual({ [member.id]: 2 });
    const router = await t.api.get('/api/admin/actors/router', { token: t.adminToken });
    expect(router.body).toMatchObject({ id: 'router', kind: 'router', state: 'running' });
    expect(router.body.context.sockets_per_user).toEqual({ [member.id]: 2, [agent.id]: 1 });
    const limited = await t.api.get('/api/admin/actors?limit=1', { token: t.adminToken });
    expect(limited.body.connections.items).toHaveLength(1);
  });

  it('shows no credential in any summary or snapshot', async () => {
    await clients.connect(t.adminToken);
    await clients.connect(agent.api_token);
    const summary = await t.api.get('/api/admin/actors', { token: t.adminToken });
    const ids = ['router', ...summary.body.connections.items.map((i: { id: string }) => i.id)];
    const texts = [JSON.stringify(summary.body)];
    for (const id of ids) texts.push(JSON.stringify((await t.api.get(`/api/admin/actors/${id}`, { token: t.adminToken })).body));
    const all = texts.join('\n');
    for (const secret of [t.adminToken, agent.api_token, 'admin-password', t.jwtSecret]) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/"(credential|api_token|password_hash|token)"/);
  });

  it('answers 404 for an actor that is not live and 400 for an id that cannot be one', async () => {
    const socket = await clients.connect(member.token);
    const { body } = await t.api.get(`/api/admin/actors?user_id=${member.id}`, { token: t.adminToken });
    const id = body.connections.items[0].id as string;
    await socket.close();
    await clients.closeAll();
    // The actor leaves the system when it reaches its final state after the close.
    const gone = await t.api.get(`/api/admin/actors/${id}`, { token: t.adminToken });
    if (gone.status === 200) expect(gone.body.state).toBe('closed');
    else expect(gone.body).toEqual({ error: `actor ${id} not found` });
    expect((await t.api.get('/api/admin/actors/connection-999999', { token: t.adminToken })).body).toEqual({ error: 'actor connection-999999 not found' });
    const bad = await t.api.get('/api/admin/actors/Router!', { token: t.adminToken });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^actor_id must be an actor id/);
  });
});
