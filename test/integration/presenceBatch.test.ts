// Batched presence over real sockets: a dashboard that opens its socket with `presence=batched` gets
// PRESENCE_BATCH frames (the latest change per agent) and no single PRESENCE frames; a socket that
// does not ask gets one PRESENCE per change as before; a bad value is refused before the upgrade;
// the typed client hands a batch's frames to its PRESENCE listeners one by one.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { HubClient } from '../../src/client/index.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { refusedUpgrade, wsClientPool, type Frame } from '../helpers/wsClient.js';

describeEachDriver('batched presence', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('sends a batched socket the latest change per agent in PRESENCE_BATCH frames, and a plain socket every change', async () => {
    const batched = await clients.connect(t.adminToken, { presence: 'batched' });
    const plain = await clients.connect(t.adminToken);
    const agents = await Promise.all(Array.from({ length: 5 }, () => t.createAgent()));
    const sockets = await Promise.all(agents.map((a) => clients.connect(a.api_token)));
    await Promise.all(sockets.slice(0, 2).map((s) => s.close()));
    const ids = new Set(agents.map((a) => a.id));
    const last = agents.at(-1)!.id;

    // The plain socket: a PRESENCE per connect and per disconnect.
    for (const agent of agents) await plain.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.online, 'online');
    for (const agent of agents.slice(0, 2))
      await plain.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && !f.payload.online, 'offline');

    // The batched socket: batches until every agent's latest state has arrived; never a single PRESENCE.
    const latest = new Map<number, boolean>();
    const expected = new Map(agents.map((a, i) => [a.id, i >= 2]));
    let batches = 0;
    while ([...expected].some(([id, online]) => latest.get(id) !== online)) {
      const batch = await batched.next('PRESENCE_BATCH');
      batches++;
      const seen = new Set<number>();
      for (const f of batch.payload.frames as Frame[]) {
        expect(f.type).toBe('PRESENCE');
        // One entry per agent in a batch.
        expect(seen.has(f.payload.user_id)).toBe(false);
        seen.add(f.payload.user_id);
        if (ids.has(f.payload.user_id)) latest.set(f.payload.user_id, f.payload.online);
      }
    }
    expect(batches).toBeLessThanOrEqual(agents.length + 2);
    expect(latest.get(last)).toBe(true);
    expect(batched.received.filter((f) => f.type === 'PRESENCE')).toEqual([]);
  });

  it('refuses a presence value it does not know before the upgrade', async () => {
    const refused = await refusedUpgrade(t.url, t.adminToken, { presence: 'all' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/presence/);
  });

  it("hands the typed client's PRESENCE listeners each frame of a batch", async () => {
    const client = new HubClient({ url: t.url, token: t.adminToken, presence: 'batched', reconnect: false });
    try {
      await client.connect();
      const agent = await t.createAgent();
      const heard = new Promise<boolean>((resolve) => {
        client.on('PRESENCE', (f) => {
          if (f.payload.user_id === agent.id) resolve(f.payload.online);
        });
      });
      await clients.connect(agent.api_token);
      expect(await heard).toBe(true);
    } finally {
      await client.close();
    }
  });
});
