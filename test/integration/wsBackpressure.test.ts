// A slow consumer is cut off (4011) once its outbound buffer passes WS_MAX_BUFFERED_BYTES, while a
// fast reader of the same traffic keeps receiving everything; the slow one resumes with `since`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConnectionActor } from '../../src/actors/connection.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

/** Resolves with the actor's final snapshot once it reaches `closed`. */
function whenClosed(actor: ConnectionActor) {
  return new Promise<ReturnType<ConnectionActor['getSnapshot']>>((resolve) => {
    const check = () => {
      const snapshot = actor.getSnapshot();
      if (snapshot.status === 'done') {
        subscription.unsubscribe();
        resolve(snapshot);
      }
    };
    const subscription = actor.subscribe(check);
    check();
  });
}

describeEachDriver('websocket backpressure', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, { WS_MAX_BUFFERED_BYTES: String(256 * 1024) });
  });
  afterAll(() => t.stop());

  it('cuts off a slow consumer with 4011 while a fast one keeps receiving; the slow one resumes', async () => {
    const agent = await t.createAgent();
    const slowUser = await t.createMember();
    const fastUser = await t.createMember();
    const before = await t.lastMessageId();
    const slow = await connectWs(t.url, slowUser.token);
    const fast = await connectWs(t.url, fastUser.token);
    const a = await connectWs(t.url, agent.api_token);
    const slowActor = [...t.hub.connections.values()].find((c) => c.getSnapshot().context.user?.id === slowUser.id);
    if (!slowActor) {
      const seen = [...t.hub.connections.values()].map((c) => [c.getSnapshot().value, c.getSnapshot().context.user?.id]);
      throw new Error(`no connection actor for user ${slowUser.id}: ${JSON.stringify(seen)}`);
    }

    // The slow reader stops reading: the kernel buffers fill, then the hub's buffer for it grows.
    (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const content = 'x'.repeat(60_000);
    const count = 300; // ~19 MiB: far beyond loopback socket buffers
    // One at a time (each ACKed before the next), so the fast reader, in this same process, is
    // never handed more than one frame at once.
    for (let i = 0; i < count; i++) {
      a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `${i} ${content}` }, local_id: `l${i}` });
      await a.nextWhere((f) => f.type === 'ACK' && f.local_id === `l${i}`, `ACK ${i}`);
    }

    const final = await whenClosed(slowActor);
    expect(final.context.closeCode).toBe(4011);
    expect(final.context.closeReason).toBe('slow consumer: resume with since');

    await fast.nextWhere((f) => f.type === 'SYSTEM_LOG' && f.local_id === `l${count - 1}`, 'the last log', 30_000);
    const fastLogs = fast.received.filter((f) => f.type === 'SYSTEM_LOG');
    expect(fastLogs).toHaveLength(count);
    expect(fastLogs.map((f) => f.local_id)).toEqual(Array.from({ length: count }, (_, i) => `l${i}`));

    // Resuming from the last id it saw, the slow user gets the rest: nothing was lost for it.
    (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
    await slow.closed(30_000);
    const seen = slow.received.filter((f) => f.type === 'SYSTEM_LOG').map((f) => f.id!);
    expect(seen.length).toBeLessThan(count);
    const resumed = await connectWs(t.url, slowUser.token, { since: seen.at(-1) ?? before });
    await resumed.nextWhere((f) => f.local_id === `l${count - 1}`, 'the last log on resume', 30_000);
    const all = [...seen, ...resumed.received.filter((f) => f.type === 'SYSTEM_LOG').map((f) => f.id!)];
    expect(all).toEqual(fastLogs.map((f) => f.id));
    await Promise.all([fast.close(), a.close(), resumed.close()]);
  }, 60_000);
});
