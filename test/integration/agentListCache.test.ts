// The agent list that dashboards poll is reused on SQLite while the file is unchanged (on
// PostgreSQL it is read every time); whatever changes it shows at once: presence and reports the
// writer thread commits, and registrations, token rotations and deletions made on the API's own
// connection.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

describeEachDriver('agent list cache', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  const listed = async (id: number) => {
    // Twice: the second read is the one a cache would answer.
    await t.api.get('/api/users/agents', { token: t.adminToken });
    const res = await t.api.get('/api/users/agents', { token: t.adminToken });
    expect(res.status).toBe(200);
    return { item: (res.body as Array<{ id: number } & Record<string, unknown>>).find((a) => a.id === id), total: Number(res.headers.get('x-total-count')) };
  };

  it('shows registrations, presence, reports, rotations and deletions on the next read', async () => {
    const before = await listed(-1);
    const agent = await t.createAgent();
    const registered = await listed(agent.id);
    expect(registered.item).toMatchObject({ username: agent.username, online: false, last_report: null });
    expect(registered.total).toBe(before.total + 1);

    // Presence is committed by the writer thread (another connection on SQLite).
    const admin = await connectWs(t.url, t.adminToken);
    const socket = await connectWs(t.url, agent.api_token);
    await admin.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.online === true, 'the agent online');
    expect((await listed(agent.id)).item).toMatchObject({ online: true, status: 'ONLINE' });

    const posted = await t.api.post('/api/messages', { level: 'INFO', content: 'warming up' }, { token: agent.api_token });
    expect(posted.status).toBe(201);
    await admin.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.last_report === 'warming up', 'the report presence');
    expect((await listed(agent.id)).item).toMatchObject({ last_report: 'warming up' });

    const rotated = await t.api.patch(`/api/users/agents/${agent.id}/token`, undefined, { token: t.adminToken });
    expect((await listed(agent.id)).item).toMatchObject({ token_hint: rotated.body.token_hint });

    await socket.close();
    expect((await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken })).status).toBe(200);
    const deleted = await listed(agent.id);
    expect(deleted.item).toBeUndefined();
    expect(deleted.total).toBe(before.total);
    await admin.close();
  });
});
