// The hub's port: taken exclusively (a second hub on it fails to start and says why), and bound
// again at once by a hub restarted on the same database.
import { createServer } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

/**
 * A free port below the kernel's ephemeral range (32768+ here): a port handed out by "port 0" can
 * be taken as the local port of any outgoing connection (a PostgreSQL pool's, a test client's)
 * while its hub is down, which is no fault of the hub. A fixed SERVER_PORT is chosen this way too.
 */
async function freeFixedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

describeEachDriver('listening', (driver) => {
  const hubs: TestHub[] = [];
  afterEach(async () => {
    for (const hub of hubs.splice(0)) await hub.stop().catch(() => undefined);
  });

  it('refuses to start on a port another hub holds, naming the port', async () => {
    const port = await freeFixedPort();
    const first = await startTestHub(driver, { SERVER_PORT: String(port) });
    hubs.push(first);
    await expect(startTestHub(driver, { SERVER_PORT: String(port) })).rejects.toThrow(`port ${port} is in use on 127.0.0.1`);
    // The first hub still answers every request on its port.
    for (let i = 0; i < 20; i++) expect((await first.api.get('/api/ping')).status).toBe(200);
  });

  it('binds the same port again on each of 20 stop/start cycles, with clients connected at each stop', { timeout: 120_000 }, async () => {
    const port = await freeFixedPort();
    let hub = await startTestHub(driver, { SERVER_PORT: String(port) });
    const agent = await hub.createAgent();
    for (let cycle = 0; cycle < 20; cycle++) {
      expect(hub.hub.port).toBe(port);
      const socket = await connectWs(hub.url, agent.api_token);
      expect((await hub.api.get('/api/users/agents', { token: hub.adminToken })).status).toBe(200);
      hub = await hub.restart();
      expect(await socket.closed()).toMatchObject({ code: 1001 });
    }
    hubs.push(hub);
    expect(hub.hub.port).toBe(port);
  });
});
