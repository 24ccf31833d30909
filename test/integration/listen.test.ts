// The hub's port: taken exclusively (a second hub on it fails to start and says why), and bound
// again at once by a hub restarted on the same database.
import { afterEach, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { reservePorts } from '../helpers/ports.js';
import { connectWs } from '../helpers/wsClient.js';

describeEachDriver('listening', (driver) => {
  const hubs: TestHub[] = [];
  afterEach(async () => {
    for (const hub of hubs.splice(0)) await hub.stop().catch(() => undefined);
  });

  it('refuses to start on a port another hub holds, naming the port', async () => {
    const port = await reservePorts();
    const first = await startTestHub(driver, { SERVER_PORT: String(port) });
    hubs.push(first);
    await expect(startTestHub(driver, { SERVER_PORT: String(port) })).rejects.toThrow(`port ${port} is in use on 127.0.0.1`);
    // The first hub still answers every request on its port.
    for (let i = 0; i < 20; i++) expect((await first.api.get('/api/ping')).status).toBe(200);
  });

  it('binds the same port again on each of 20 stop/start cycles, with clients connected at each stop', { timeout: 120_000 }, async () => {
    const port = await reservePorts();
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
