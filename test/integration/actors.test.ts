// Actor inspection over HTTP: admins see the live actor system and each actor's snapshot (the same
// snapshots tests read through the test kit's hub.actors); members and agents get 403; no snapshot
// holds a secret. Hubs come from the test kit (src/testing), one per test.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { TestHub } from '../../src/testing/index.js';
import { describeEachDriver } from '../helpers/db.js';
import { apiClient } from '../helpers/http.js';
import { startKitHub } from '../helpers/kit.js';
import { wsClientPool } from '../helpers/wsClient.js';

describeEachDriver('actor inspection', (driver) => {
  let hub: TestHub;
  let api: ReturnType<typeof apiClient>;
  // A second socket of one user: the kit gives one client per user.
  const extra = wsClientPool(() => hub.url);
  beforeEach(async () => {
    hub = await startKitHub(driver);
    api = apiClient(hub.url);
  });
  afterEach(async () => {
    await extra.closeAll();
    await hub.stop();
  });
  const asAdmin = () => ({ token: hub.adminToken });

  it('refuses members and agents with 403', async () => {
    const member = await hub.human('member');
    const agent = await hub.agent('agent');
    for (const path of ['/api/admin/actors', '/api/admin/actors/router']) {
      for (const token of [member.token, agent.token]) {
        const res = await api.get(path, { token });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'admin access required' });
      }
    }
  });

  it("shows an admin their own socket's actor in open, with its snapshot", async () => {
    const ops = await hub.human('ops', { role: 'ADMIN' });
    const summary = await api.get(`/api/admin/actors?user_id=${ops.id}`, asAdmin());
    expect(summary.status).toBe(200);
    const mine = summary.body.connections.items;
    expect(mine).toEqual([{ id: expect.stringMatching(/^connection-\d+$/), state: 'open.live', user_id: ops.id, username: 'ops', role: 'ADMIN' }]);
    expect(summary.body.connections.by_state_and_role.open.ADMIN).toBe(1);
    expect(summary.body.router).toMatchObject({ id: 'router', state: 'running', endpoints: 1, by_role: { ADMIN: 1 } });
    // No connector runs on a fresh hub.
    expect(summary.body.connector).toMatchObject({ id: 'connector', state: 'idle', connector_id: null, connection: 'stopped' });

    const snapshot = await api.get(`/api/admin/actors/${mine[0].id}`, asAdmin());
    expect(snapshot.status).toBe(200);
    expect(snapshot.body).toMatchObject({
      id: mine[0].id,
      kind: 'connection',
      state: 'open.live',
      status: 'active',
      context: { user: { id: ops.id, username: 'ops', role: 'ADMIN' }, close_code: null, outlet: { closed: false } },
    });
    // What the API shows is what a test reads through the kit.
    expect(hub.actors.get(mine[0].id)).toEqual(snapshot.body);
    expect(hub.actors.list({ kind: 'connection' })).toEqual([snapshot.body]);
  });

  it('counts connection actors by state and role and the router by users with several sockets', async () => {
    const member = await hub.human('member');
    await extra.connect(member.token);
    const agent = await hub.agent('agent');
    const { body } = await api.get('/api/admin/actors', asAdmin());
    expect(body.connections.by_state_and_role.open).toEqual({ MEMBER: 2, AGENT: 1 });
    expect(body.connections.total).toBe(3);
    expect(body.router.multi_socket_users).toEqual({ [member.id]: 2 });
    const router = await api.get('/api/admin/actors/router', asAdmin());
    expect(router.body).toMatchObject({ id: 'router', kind: 'router', state: 'running' });
    expect(router.body.context.sockets_per_user).toEqual({ [member.id]: 2, [agent.id]: 1 });
    // The kit reads the same snapshot (its delivery count moves on with every presence frame).
    expect(hub.actors.get('router')).toMatchObject({
      id: 'router',
      kind: 'router',
      state: 'running',
      context: { sockets_per_user: router.body.context.sockets_per_user },
    });
    const limited = await api.get('/api/admin/actors?limit=1', asAdmin());
    expect(limited.body.connections.items).toHaveLength(1);
  });

  it('shows no credential in any summary or snapshot', async () => {
    const ops = await hub.human('ops', { role: 'ADMIN' });
    const agent = await hub.agent('agent');
    const summary = await api.get('/api/admin/actors', asAdmin());
    const ids = ['router', ...summary.body.connections.items.map((i: { id: string }) => i.id)];
    const texts = [JSON.stringify(summary.body), JSON.stringify(hub.actors.list())];
    for (const id of ids) texts.push(JSON.stringify((await api.get(`/api/admin/actors/${id}`, asAdmin())).body));
    const all = texts.join('\n');
    for (const secret of [hub.adminToken, ops.token, agent.token, 'admin-password', 'test-password']) expect(all).not.toContain(secret);
    expect(all).not.toMatch(/"(credential|api_token|password_hash|token)"/);
  });

  it('answers 404 for an actor that is not live and 400 for an id that cannot be one', async () => {
    const member = await hub.human('member');
    const { body } = await api.get(`/api/admin/actors?user_id=${member.id}`, asAdmin());
    const id = body.connections.items[0].id as string;
    await member.close();
    // The actor leaves the system when it reaches its final state after the close.
    const gone = await api.get(`/api/admin/actors/${id}`, asAdmin());
    if (gone.status === 200) expect(gone.body.state).toBe('closed');
    else expect(gone.body).toEqual({ error: `actor ${id} not found` });
    expect((await api.get('/api/admin/actors/connection-999999', asAdmin())).body).toEqual({ error: 'actor connection-999999 not found' });
    const bad = await api.get('/api/admin/actors/Router!', asAdmin());
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^actor_id must be an actor id/);
  });
});
