// Shutdown order: stop accepting, let requests in flight finish (their writes land), refuse new
// ones on kept-alive connections, then close.
import { request } from 'node:http';
import { expect, it, vi } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub } from '../helpers/hub.js';

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
});
