// /api/health and /api/ready: cheap, public, logged at debug only; readiness answers 503 with the
// reason while the hub shuts down and while its store is unreachable (PostgreSQL behind a proxy we
// cut; SQLite closed), and comes back when the store does.
import { Agent, request } from 'node:http';
import { describe, expect, inject, it, vi } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, startTestHubBehindProxy } from '../helpers/hub.js';

/** GET over one kept-alive connection (it outlives the listen socket during shutdown). */
function get(url: string, agent: Agent): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    })
      .on('error', reject)
      .end();
  });
}

describeEachDriver('health and readiness', (driver) => {
  it('answers health and readiness publicly, logging them at debug only', async () => {
    const t = await startTestHub(driver);
    try {
      const health = await t.api.get('/api/health');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok', uptime_seconds: expect.any(Number) });
      const ready = await t.api.get('/api/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ready' });
      await t.api.get('/api/ping'); // logged at info, as before: the log is being written
      expect(t.logs.some((l) => l['msg'] === 'request' && l['path'] === '/api/ping')).toBe(true);
      expect(t.logs.some((l) => String(l['path']).startsWith('/api/health') || String(l['path']).startsWith('/api/ready'))).toBe(false);
    } finally {
      await t.stop();
    }
  });

  it('answers 503 with the reason once shutdown has begun', async () => {
    const t = await startTestHub(driver);
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(`${t.url}/api/ready`, keepAlive)).status).toBe(200);
      // A request in flight keeps the hub draining, so the kept-alive connection can still ask.
      const body = JSON.stringify({ level: 'INFO', content: 'in flight' });
      let finish = () => {};
      const inFlight = new Promise<number>((resolve, reject) => {
        const req = request(
          `${t.url}/api/messages`,
          { method: 'POST', headers: { Authorization: `Bearer ${t.adminToken}`, 'Content-Type': 'application/json', 'Content-Length': body.length } },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode!));
          },
        );
        req.on('error', reject);
        req.write(body.slice(0, 5));
        finish = () => req.end(body.slice(5));
      });
      await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(1));
      const stopping = t.hub.stop();
      const during = await get(`${t.url}/api/ready`, keepAlive);
      expect(during.status).toBe(503);
      expect(during.body).toEqual({ error: 'the hub is shutting down' });
      finish();
      expect(await inFlight).toBe(201);
      await stopping;
    } finally {
      keepAlive.destroy();
      await t.stop();
    }
  });
});

describe('readiness without a store', () => {
  it('answers 503 "the store is unreachable" when SQLite is closed, and logs the change once', async () => {
    const t = await startTestHub('sqlite');
    try {
      await t.hub.store.close();
      for (let i = 0; i < 3; i++) {
        const res = await t.api.get('/api/ready');
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'not ready: the store is unreachable' });
      }
      expect(t.logs.filter((l) => l['msg'] === 'readiness: not ready')).toHaveLength(1);
      expect((await t.api.get('/api/health')).status).toBe(200);
    } finally {
      await t.stop().catch(() => undefined);
    }
  });

  it.skipIf(!inject('pgUrl'))('answers 503 while PostgreSQL cannot be reached, and 200 once it can again', async () => {
    const { t, proxy, stop } = await startTestHubBehindProxy();
    try {
      expect((await t.api.get('/api/ready')).status).toBe(200);
      await proxy.cut();
      const down = await t.api.get('/api/ready');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ error: 'not ready: the store is unreachable' });
      expect(t.logs.find((l) => l['msg'] === 'readiness: not ready')).toMatchObject({ level: 'warn', reason: 'the store is unreachable' });
      await proxy.restore();
      const up = await t.api.get('/api/ready');
      expect(up.status).toBe(200);
      expect(t.logs.some((l) => l['msg'] === 'readiness: ready again')).toBe(true);
    } finally {
      await stop();
    }
  });
});
