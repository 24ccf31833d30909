// Answers to the frames the hub takes, as the chaos fuzz found them missing on PostgreSQL. A frame far
// over the size limit closes the socket with 1009, but frames taken before it are answered first (ACK
// or ERROR), as with the abuse closes; they used to be lost with the connection whenever the pipeline
// was slower than the big frame's arrival. And a batch of frames to a user that does not exist costs
// one lookup, not one each (a query each on PostgreSQL, which slowed every answer past the fuzz's 5 s).
// The store's batch write is held to put the pipeline exactly where a busy store leaves it.
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs } from '../helpers/wsClient.js';

const MiB = 1024 * 1024;
const NOBODY = 999_999_999;

/** Releases of the writes held by the current test (all released after it). */
let holds: Array<() => void> = [];

/** Holds every batch write until `release()`; the pipeline answers nothing it writes meanwhile. */
function holdWrites(t: TestHub) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  holds.push(release);
  const write = t.hub.store.writeBatch;
  const writes = vi.spyOn(t.hub.store, 'writeBatch').mockImplementation(async (batch) => {
    await released;
    return write(batch);
  });
  return { release, writes };
}

describeEachDriver('answers to the frames the hub takes', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());
  afterEach(() => {
    for (const release of holds) release();
    holds = [];
    vi.restoreAllMocks();
  });

  it('a 1009 close ACKs what it stored and refuses what it could not route first', async () => {
    const agent = await t.createAgent();
    const client = await connectWs(t.url, agent.api_token);
    // The connection's presence is written before the store is held.
    await t.hub.pipeline.drain();
    const store = holdWrites(t);

    client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'before the big one' }, local_id: 'stored' });
    client.send({ type: 'CHAT', payload: 'to no one', target_id: NOBODY, local_id: 'nobody' });
    const big = 2 * MiB + 1;
    client.sendRaw(`{"type":"SYSTEM_LOG","local_id":"big","payload":"${'x'.repeat(big - 51)}"}`);
    client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'after the big one' }, local_id: 'after' });

    // A frame that arrives while the close waits is refused at once, naming its local_id.
    const after = await client.nextWhere((f) => f.type === 'ERROR' && f.local_id === 'after', 'the ERROR of the frame after the big one');
    expect(after.payload).toMatchObject({ code: 'frame_too_large' });
    store.release();

    const ack = await client.nextWhere((f) => f.type === 'ACK' && f.local_id === 'stored', 'the ACK of the stored frame');
    const refused = await client.nextWhere((f) => f.type === 'ERROR' && f.local_id === 'nobody', 'the ERROR of the frame to no one');
    expect(refused.payload).toMatchObject({ code: 'not_found' });
    expect(await client.closed()).toEqual({ code: 1009, reason: `frame of ${big} bytes; the limit is ${MiB}` });

    const rows = await t.hub.store.db.selectFrom('messages').select(['id', 'local_id']).where('sender_id', '=', agent.id).execute();
    expect(rows).toEqual([{ id: ack.id, local_id: 'stored' }]);
  });

  it('a 1009 close comes at once when nothing waits for an answer', async () => {
    const agent = await t.createAgent();
    const client = await connectWs(t.url, agent.api_token);
    await t.hub.pipeline.drain();
    holdWrites(t);
    const big = 2 * MiB + 1;
    client.sendRaw('x'.repeat(big));
    expect(await client.closed()).toEqual({ code: 1009, reason: `frame of ${big} bytes; the limit is ${MiB}` });
    expect(client.received).toEqual([]);
  });

  it('looks a missing target up once per batch, not once per frame', async () => {
    const agent = await t.createAgent();
    const client = await connectWs(t.url, agent.api_token);
    await t.hub.pipeline.drain();
    // Writes in flight up to the store's depth hold the queue: what comes next waits as one batch.
    const store = holdWrites(t);
    for (let i = 1; i <= t.hub.store.writeDepth; i++) {
      client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `hold ${i}` }, local_id: `hold${i}` });
      await vi.waitFor(() => expect(store.writes).toHaveBeenCalledTimes(i));
    }
    const frames = 100;
    for (let i = 0; i < frames; i++) client.send({ type: 'CHAT', payload: 'to no one', target_id: NOBODY, local_id: `nobody${i}` });
    await vi.waitFor(() => expect(t.hub.pipeline.depth).toBe(frames));

    // A user is read through a query built per call or through a compiled one; count both kinds.
    const selects = vi.spyOn(t.hub.store.db, 'selectFrom');
    const compiled = vi.spyOn(t.hub.store.db, 'executeQuery');
    store.release();
    const refused = await Promise.all(
      Array.from({ length: frames }, (_, i) => client.nextWhere((f) => f.type === 'ERROR' && f.local_id === `nobody${i}`, `the ERROR of nobody${i}`)),
    );
    for (const error of refused) expect(error.payload).toMatchObject({ code: 'not_found', message: expect.stringContaining(`target user ${NOBODY}`) });
    const userLookups =
      selects.mock.calls.filter(([from]) => from === 'users').length +
      compiled.mock.calls.filter(([query]) => /^select .* from "users"/i.test((query as { sql: string }).sql)).length;
    expect(userLookups).toBe(1);
    await client.close();
  });
});
