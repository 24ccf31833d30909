// WebSocket sessions over real sockets: who may upgrade, what closes a live socket (rotation,
// deletion, role change, JWT expiry), presence with several sockets per user, and the connection
// and router actors' snapshots, and the upgrade's answer while the store cannot be reached.
import jwt from 'jsonwebtoken';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, startTestHubBehindProxy, type TestHub } from '../helpers/hub.js';
import { connectWs, refusedUpgrade, wsClientPool, type WsClient } from '../helpers/wsClient.js';

describeEachDriver('websocket sessions', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;
  const presenceOf = (client: WsClient, userId: number, online: boolean) =>
    client.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === userId && f.payload.online === online, `PRESENCE of ${userId} online=${online}`);

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('refuses the upgrade with 401 JSON for a missing, bad, expired, rotated or deleted credential', async () => {
    expect(await refusedUpgrade(t.url, undefined)).toEqual({ status: 401, body: { error: 'token is required: connect to /api/ws?token=<JWT or api_token>' } });
    expect(await refusedUpgrade(t.url, 'not-a-token-at-all')).toEqual({ status: 401, body: { error: 'invalid token' } });
    const expired = jwt.sign({ username: 'admin', role: 'ADMIN' }, t.jwtSecret, { algorithm: 'HS256', subject: '1', expiresIn: -10 });
    expect(await refusedUpgrade(t.url, expired)).toEqual({ status: 401, body: { error: 'invalid token' } });
    const forged = jwt.sign({ username: 'admin', role: 'ADMIN' }, 'another-secret-another-secret-xx', { algorithm: 'HS256', subject: '1', expiresIn: 60 });
    expect(await refusedUpgrade(t.url, forged)).toEqual({ status: 401, body: { error: 'invalid token' } });

    const agent = await t.createAgent();
    const rotated = await t.api.patch(`/api/users/agents/${agent.id}/token`, {}, { token: t.adminToken });
    expect(rotated.status).toBe(200);
    expect((await refusedUpgrade(t.url, agent.api_token)).status).toBe(401);
    const fresh = await connect(rotated.body.api_token);
    await fresh.close();
    await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken });
    expect((await refusedUpgrade(t.url, rotated.body.api_token)).status).toBe(401);
    expect(await refusedUpgrade(t.url, t.adminToken, { since: 'yesterday' })).toEqual({
      status: 400,
      body: { error: 'since must be a message id (a whole number)' },
    });
  });

  it('accepts the credential as a bearer header too', async () => {
    const agent = await t.createAgent();
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, { headers: { Authorization: `Bearer ${agent.api_token}` } });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.close();
  });

  it('closes live sockets when the agent token is rotated or the agent deleted (4001)', async () => {
    const agent = await t.createAgent();
    const s1 = await connect(agent.api_token);
    const s2 = await connect(agent.api_token);
    const rotated = await t.api.patch(`/api/users/agents/${agent.id}/token`, {}, { token: t.adminToken });
    expect(await s1.closed()).toEqual({ code: 4001, reason: 'api_token rotated' });
    expect(await s2.closed()).toEqual({ code: 4001, reason: 'api_token rotated' });
    const s3 = await connect(rotated.body.api_token);
    await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken });
    expect(await s3.closed()).toEqual({ code: 4001, reason: 'agent deleted' });
  });

  it('closes a deleted user (4001) and a user whose role changed (4005)', async () => {
    const doomed = await t.createMember();
    const promoted = await t.createMember();
    const d = await connect(doomed.token);
    const p = await connect(promoted.token);
    await t.api.delete(`/api/users/${doomed.id}`, { token: t.adminToken });
    expect(await d.closed()).toEqual({ code: 4001, reason: 'user deleted' });
    await t.api.patch(`/api/users/${promoted.id}`, { role: 'ADMIN' }, { token: t.adminToken });
    expect(await p.closed()).toEqual({ code: 4005, reason: 'role changed; reconnect' });
    // The same JWT reconnects and is now routed as an admin.
    const again = await connect(promoted.token);
    const agent = await t.createAgent();
    const a = await connect(agent.api_token);
    a.send({ type: 'CHAT', payload: 'for Butler', target_id: 2 });
    expect(await again.next('BUTLER_AGENT_MESSAGE')).toMatchObject({ payload: { payload: 'for Butler' } });
  });

  it('closes a socket when its JWT expires (4002)', async () => {
    const member = await t.createMember();
    const shortLived = jwt.sign({ username: member.username, role: 'MEMBER' }, t.jwtSecret, { algorithm: 'HS256', subject: String(member.id), expiresIn: 1 });
    const s = await connect(shortLived);
    expect(await s.closed(4000)).toEqual({ code: 4002, reason: 'session expired; log in again' });
    const { exp } = jwt.decode(shortLived) as { exp: number };
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
  });

  it('keeps an agent online while any of its sockets is open, and pushes presence to humans only', async () => {
    const agent = await t.createAgent();
    const watcher = await t.createAgent();
    const m = await connect((await t.createMember()).token);
    const w = await connect(watcher.api_token);
    const tab1 = await connect(agent.api_token);
    const online = await presenceOf(m, agent.id, true);
    expect(online).toMatchObject({
      type: 'PRESENCE',
      payload: {
        user_id: agent.id,
        username: agent.username,
        status: 'ONLINE',
        online: true,
        last_report: 'websocket_connected',
        last_seen_at: expect.any(String),
      },
    });
    const tab2 = await connect(agent.api_token);
    await tab1.close();
    tab2.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'still working' } });
    // The report arrives with presence that is still online: closing one socket of two is not "offline".
    const report = await m.nextWhere((f) => f.type === 'PRESENCE' && f.payload.last_report === 'still working', 'the report presence');
    expect(report.payload).toMatchObject({ online: true, status: 'ONLINE' });
    expect(m.received.filter((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && !f.payload.online)).toEqual([]);
    await tab2.close();
    const offline = await presenceOf(m, agent.id, false);
    expect(offline.payload).toMatchObject({ status: 'OFFLINE', last_report: 'websocket_disconnected' });
    expect(offline.payload.last_seen_at >= online.payload.last_seen_at).toBe(true);
    const stored = await t.api.get(`/api/users/${agent.id}`, { token: t.adminToken });
    expect(stored.body).toMatchObject({ online: false, status: 'OFFLINE', last_seen_at: offline.payload.last_seen_at, last_report: 'websocket_disconnected' });
    expect(w.received.filter((f) => f.type === 'PRESENCE')).toEqual([]);
  });

  it('exposes connection and router actors whose snapshots show state, user and address table', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const m1 = await connect(member.token);
    const m2 = await connect(member.token);
    await m1.close();
    const table = t.hub.router.getSnapshot().context.table;
    expect(t.hub.router.getSnapshot().value).toBe('running');
    expect(t.hub.router.system.get('router')).toBe(t.hub.router);
    expect(table.countOf(agent.id)).toBe(1);
    expect(table.countOf(member.id)).toBe(1);
    const actors = [...t.hub.connections.values()].map((c) => c.getSnapshot());
    const mine = actors.filter((s) => s.context.user?.id === member.id);
    expect(mine.map((s) => s.value)).toEqual([{ open: 'live' }]);
    const agentSnapshot = actors.find((s) => s.context.user?.id === agent.id)!;
    // Every connection actor lives in the router's system and can reach it by its system id.
    for (const c of t.hub.connections.values()) expect(c.system.get('router')).toBe(t.hub.router);
    expect(agentSnapshot.value).toEqual({ open: 'live' });
    expect(agentSnapshot.context).toMatchObject({ user: { id: agent.id, username: agent.username, role: 'AGENT' } });
    // The upgrade checks the credential itself: the actor never holds it.
    expect(Object.keys(agentSnapshot.context)).not.toContain('credential');
    expect(agentSnapshot.context.expiresAt).toBeUndefined();
    // Rate limit and backpressure state are part of the snapshot.
    expect(agentSnapshot.context.meters.rate.available).toBeGreaterThan(0);
    expect(agentSnapshot.context.outlet).toMatchObject({ closed: false, congested: false });
    expect(JSON.stringify(agentSnapshot.context.user)).not.toContain(agent.api_token);
    await a.close();
    await m2.close();
    expect(table.countOf(member.id)).toBe(0);
  });
});

describeEachDriver('websocket heartbeat', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, { WS_IDLE_TIMEOUT: '8' });
  });
  afterAll(() => t.stop());

  it('detects a dead socket (pings unanswered) and marks its agent offline', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connectWs(t.url, member.token);
    // A client that never answers pings and sends nothing looks exactly like a dead peer.
    const silent = await connectWs(t.url, agent.api_token, {}, { autoPong: false });
    await m.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.online, 'online');
    const offline = await m.nextWhere(
      (f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && !f.payload.online,
      'offline after the idle timeout',
      25_000,
    );
    expect(offline.payload).toMatchObject({ status: 'OFFLINE', last_report: 'websocket_disconnected' });
    await silent.closed(5000);
    // Routine (a node or a network path failing drops thousands at once): counted, and one info line
    // each, not a warn line each.
    await vi.waitFor(() =>
      expect(t.logs.find((l) => l['msg'] === 'websocket closed: the client was silent for WS_IDLE_TIMEOUT' && l['user'] === agent.username)).toMatchObject({
        level: 'info',
        code: 1006,
      }),
    );
    expect(t.logs.filter((l) => String(l['msg']).startsWith('the transport dropped the connection') && l['user'] === agent.username)).toEqual([]);
    expect(await (await fetch(`${t.url}/metrics`)).text()).toMatch(/^hub_ws_transport_drops_total\{reason="idle"\} [1-9]/m);
    // A client that answers pings stays connected through the same silence.
    expect(m.socket.readyState).toBe(m.socket.OPEN);
    await m.close();
  }, 40_000);
});

describe('websocket upgrade while the store is unreachable', () => {
  const couldNotCheck = { status: 503, body: { error: 'the hub could not check the credential; try again' } };
  const warned = (t: TestHub) => t.logs.filter((l) => l['msg'] === 'could not check a WebSocket credential; refused with 503');

  it('answers 503 (not 401, not a dropped request) when SQLite is closed, and logs why without the credential', async () => {
    const t = await startTestHub('sqlite');
    try {
      const agent = await t.createAgent();
      await t.hub.store.close();
      expect(await refusedUpgrade(t.url, agent.api_token)).toEqual(couldNotCheck);
      expect(warned(t)).toEqual([expect.objectContaining({ level: 'warn', err: expect.objectContaining({ message: expect.any(String) }) })]);
      expect(JSON.stringify(t.logs)).not.toContain(agent.api_token);
      expect(t.hub.connections.size).toBe(0);
    } finally {
      await t.stop().catch(() => undefined);
    }
  });

  it.skipIf(!inject('pgUrl'))('answers 503 while PostgreSQL cannot be reached, and upgrades the same token once it can', async () => {
    const { t, proxy, stop } = await startTestHubBehindProxy();
    try {
      const agent = await t.createAgent();
      await proxy.cut();
      expect(await refusedUpgrade(t.url, agent.api_token)).toEqual(couldNotCheck);
      expect(warned(t)).toHaveLength(1);
      await proxy.restore();
      const client = await connectWs(t.url, agent.api_token);
      await client.close();
    } finally {
      await stop();
    }
  });
});
