// A PostgreSQL connection ended while the hub has it checked out, between two queries (as a server
// restart, a failover or pg_terminate_backend does): the hub must not crash. The message batch
// that held it is refused with `unavailable` naming its local_id, the agent sends it again, and it
// is stored and delivered once; the ones before and after are unaffected.
//
// Made deterministic with a lock: the test holds a lock that the batch writer's INSERT waits for,
// so batch A waits inside its transaction and batch B has a connection checked out, waiting for
// A's ids. Every other hub connection (B's among them) is then terminated.
import pg from 'pg';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { PG_APPLICATION_NAME } from '../../src/store/pgPool.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

describe.skipIf(!inject('pgUrl'))('PostgreSQL connection loss', () => {
  let t: TestHub | undefined;
  const clients: WsClient[] = [];
  let locker: pg.Client | undefined;

  afterEach(async () => {
    await locker?.end().catch(() => undefined);
    for (const c of clients.splice(0)) await c.close();
    await t?.stop();
    t = undefined;
    locker = undefined;
  });

  it('refuses the batch whose connection was ended while checked out, without crashing; the resend is stored once', async () => {
    t = await startTestHub('postgres');
    const human = await t.createMember();
    const agent = await t.createAgent();
    const humanWs = await connectWs(t.url, human.token);
    const agentWs = await connectWs(t.url, agent.api_token);
    clients.push(humanWs, agentWs);
    const chat = (local_id: string) => agentWs.send({ type: 'CHAT', target_id: human.id, local_id, payload: `from the agent: ${local_id}` });

    // Warm the caches (directory, default thread), so only the writer touches the store below.
    chat('warm');
    await agentWs.next('ACK');

    locker = new pg.Client({ connectionString: t.dbEnv['DATABASE_URL'] });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE messages IN SHARE MODE');
    const hubBackends = `SELECT pid, wait_event_type FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`;

    chat('a');
    await vi.waitFor(async () => {
      const { rows } = await locker!.query(hubBackends, [PG_APPLICATION_NAME]);
      expect(rows.some((r: { wait_event_type: string | null }) => r.wait_event_type === 'Lock')).toBe(true);
    });
    chat('b');
    // A waits for the lock inside its transaction; B has its connection and waits for A's ids.
    await vi.waitFor(() => {
      const counts = t!.hub.store.connections()!;
      expect(counts.total - counts.idle).toBe(2);
    });

    const killed = await locker.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = $1 AND wait_event_type IS DISTINCT FROM 'Lock'`,
      [PG_APPLICATION_NAME],
    );
    expect(killed.rowCount).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(t!.logs.some((l) => String(l['msg']).startsWith('a PostgreSQL connection failed'))).toBe(true));
    await locker.query('ROLLBACK');

    const ackA = await agentWs.nextWhere((f) => f.type === 'ACK' && f.local_id === 'a', 'the ACK of a');
    const refused = await agentWs.nextWhere((f) => f.type === 'ERROR' && f.local_id === 'b', 'the ERROR of b');
    expect(refused.payload).toMatchObject({ code: 'unavailable' });

    // The client sends it again, as the wire contract says; it is stored now.
    chat('b');
    const ackB = await agentWs.nextWhere((f) => f.type === 'ACK' && f.local_id === 'b', 'the ACK of b');
    chat('c');
    const ackC = await agentWs.nextWhere((f) => f.type === 'ACK' && f.local_id === 'c', 'the ACK of c');
    expect(ackA.id! < ackB.id! && ackB.id! < ackC.id!).toBe(true);

    for (const id of [ackA.id, ackB.id, ackC.id]) await humanWs.nextWhere((f) => f.type === 'CHAT' && f.id === id, `CHAT ${id}`);
    const stored = await t.hub.store.db.selectFrom('messages').select(['id', 'local_id']).where('sender_id', '=', agent.id).orderBy('id').execute();
    expect(stored).toEqual([
      { id: expect.any(Number), local_id: 'warm' },
      { id: ackA.id, local_id: 'a' },
      { id: ackB.id, local_id: 'b' },
      { id: ackC.id, local_id: 'c' },
    ]);
    expect(humanWs.received.filter((f) => f.type === 'CHAT').map((f) => f.local_id)).toEqual(['warm', 'a', 'b', 'c']);
    expect((await t.api.get('/api/ready')).status).toBe(200);
  });
});
