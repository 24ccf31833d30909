// Shutdown order: stop accepting, let requests in flight finish (their writes land), refuse new
// ones on kept-alive connections, then close.
import { request } from 'node:http';
import { expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { openStore } from '../../src/store/db.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

describeEachDriver('shutdown', (driver) => {
  it('finishes a request that is in flight when stop begins, then refuses new connections', async () => {
    const t = await startTestHub(driver);
    const body = JSON.stringify({ level: 'INFO', content: 'sent while the hub stops' });
    const half = Math.floor(body.length / 2);
    let finishBody = () => {};
    const answer = new Promise<{ status: number; body: { id: number; content: string } }>((resolve, reject) => {
      const req = request(
        `${t.url}/api/messages`,
        { method: 'POST', headers: { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': 'application/json', 'Content-Length': body.length } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, half));
      // The rest of the body follows once stop has begun (below).
      finishBody = () => req.end(body.slice(half));
    });

    await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(1));
    const stopping = t.hub.stop();
    finishBody();
    const res = await answer;
    expect(res.status).toBe(201);
    expect(res.body.content).toBe('sent while the hub stops');
    expect(res.body.id).toBeGreaterThan(0);
    await stopping;
    await expect(fetch(`${t.url}/api/ping`)).rejects.toThrow();
    await t.stop(); // idempotent: drops the test database
  });

  it('stops counting a request whose client hung up before the answer, so stop does not wait for it', async () => {
    const t = await startTestHub(driver);
    const body = JSON.stringify({ level: 'INFO', content: 'abandoned' });
    const req = request(`${t.url}/api/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
    });
    req.on('error', () => undefined);
    req.write(body.slice(0, 5));
    await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(1));
    req.destroy();
    await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(0));
    await t.stop();
  });

  it('closes sockets with 1001 and loses no acknowledged frame, also with frames still queued', async () => {
    const t = await startTestHub(driver);
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await connectWs(t.url, agent.api_token);
    const m = await connectWs(t.url, member.token);
    const total = 500;
    for (let i = 0; i < total; i++) a.send({ type: 'CHAT', payload: `m${i}`, target_id: member.id, local_id: `q${i}` });
    await a.next('ACK');
    const stopping = t.hub.stop();
    expect((await a.closed()).code).toBe(1001);
    expect((await m.closed()).code).toBe(1001);
    await stopping;
    await expect(connectWs(t.url, agent.api_token)).rejects.toThrow();

    const acked = a.received.filter((f) => f.type === 'ACK').map((f) => f.local_id!);
    const delivered = m.received.filter((f) => f.type === 'CHAT').map((f) => f.local_id!);
    const store = openStore(parseConfig(t.dbEnv).db);
    try {
      const rows = await store.db.selectFrom('messages').select('local_id').where('sender_id', '=', agent.id).execute();
      const stored = new Set(rows.map((r) => r.local_id));
      expect(acked.length).toBeGreaterThan(0);
      expect(acked.filter((id) => !stored.has(id))).toEqual([]);
      expect(delivered.filter((id) => !stored.has(id))).toEqual([]);
      const presence = await store.db.selectFrom('users').select(['online', 'status']).where('id', '=', agent.id).executeTakeFirstOrThrow();
      expect(presence).toEqual({ online: 0, status: 'OFFLINE' });
    } finally {
      await store.close();
    }
    await t.stop();
  });
});
