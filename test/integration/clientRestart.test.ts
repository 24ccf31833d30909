// The hub restarts under a busy agent and a watching human: a new hub on the same database, reached
// at the same address (a loopback relay in front, as a load balancer would be). The agent's client sends again whatever was not confirmed (the hub stores a local_id once)
// and the human's client resumes with `since`: every message is stored once and seen once, in order.
import { afterAll, beforeAll, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SocketConstructor } from '../../src/client/index.js';
import type { ServerFrame } from '../../src/protocol/serverFrames.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { recordingClient } from '../helpers/hubClients.js';
import { startTcpRelay } from '../helpers/tcpRelay.js';

describeEachDriver('typed client across a hub restart', (driver) => {
  let t: TestHub;

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('loses and duplicates nothing while the hub stops and a new one starts on the same database', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const relay = await startTcpRelay(t.hub.port);
    const reconnect = { initialDelayMs: 20, maxDelayMs: 200 };
    // The agent's frames as written to its socket, to see which were sent more than once.
    const written: string[] = [];
    const RecordingSocket = function (url: string) {
      const socket = new WebSocket(url);
      const send = socket.send.bind(socket);
      socket.send = (data: string) => {
        written.push(data);
        send(data);
      };
      return socket;
    } as unknown as SocketConstructor;
    const a = recordingClient({ url: relay.url, token: agent.api_token, reconnect, WebSocket: RecordingSocket });
    const m = recordingClient({ url: relay.url, token: member.token, reconnect });
    await Promise.all([a.client.connect(), m.client.connect()]);

    const total = 300;
    const sends: Array<Promise<unknown>> = [];
    const send = (n: number) => sends.push(a.client.send({ type: 'CHAT', payload: `message ${n}`, target_id: member.id }));
    for (let n = 0; n < 100; n++) send(n);
    await sends[49];
    // The rest is sent while the hub goes down (some in flight as it stops) and comes back.
    relay.retarget(undefined);
    const restarted = t.restart();
    for (let n = 100; n < 200; n++) send(n);
    t = await restarted;
    await a.waitForStatus((s) => s.state === 'waiting' && /unreachable/.test(s.message), 'the agent finding the hub down');
    for (let n = 200; n < total; n++) send(n);
    relay.retarget(t.hub.port);
    await Promise.all(sends);
    expect(a.client.pending).toBe(0);

    const isMine = (f: ServerFrame) => f.type === 'CHAT' && f.sender_id === agent.id;
    await m.waitFor((f) => isMine(f) && f.type === 'CHAT' && f.payload === `message ${total - 1}`, 'the last message at the member', 15_000);
    const seen = m.frames.filter(isMine) as Array<{ id: number; payload: string }>;
    const stored = await t.hub.store.db.selectFrom('messages').select(['id', 'payload']).where('sender_id', '=', agent.id).orderBy('id').execute();

    expect(stored).toHaveLength(total);
    expect(new Set(stored.map((r) => JSON.parse(r.payload) as string)).size).toBe(total);
    expect(seen.map((f) => f.id)).toEqual(stored.map((r) => r.id));
    // Frames written to the stopping hub were written again: the retry happened, and deduplicated.
    const writes = new Map<string, number>();
    for (const text of written) {
      const localId = (JSON.parse(text) as { local_id: string }).local_id;
      writes.set(localId, (writes.get(localId) ?? 0) + 1);
    }
    expect(writes.size).toBe(total);
    expect([...writes.values()].filter((n) => n > 1).length).toBeGreaterThan(0);
    // Both clients really went through a reconnect.
    for (const c of [a, m]) expect(c.statuses.some((s) => /^closed by the hub \(1001, the hub is shutting down\)/.test(s.message))).toBe(true);
    await Promise.all([a.client.close(), m.client.close()]);
    await relay.close();
  });
});
