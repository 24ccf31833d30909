// A remote A2A agent's back-log carried across a crash of the hub (SIGKILL, a real hub process): the
// carried mark moves only past the oldest chat still in flight, so a chat answered while an older one
// waits is stored with its answer but not yet under the mark when the hub dies. After the restart the
// back-log lists it again; it must not reach the agent a second time nor be answered twice. The older
// chat, delivered but unanswered at the crash, is carried again (at least once) under the same A2A
// messageId, so the agent can tell the retry; it is still answered once. A streamed answer cut by the
// crash: a reader on the hub's typed client is told its stream was interrupted when its socket drops,
// and the answer sent after the restart ends that very stream (same stream_id), so no reader keeps it open.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startA2aPeer, type A2aPeer } from '../helpers/a2aPeer.js';
import { startCluster, type ClusterNode, type TestCluster } from '../helpers/cluster.js';
import { describeEachDriver, type Driver } from '../helpers/db.js';
import { uniqueName } from '../helpers/hub.js';
import { recordingClient } from '../helpers/hubClients.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const ONLINE = 'a2a: remote agent online (its card answers)';
const OFFLINE = 'a2a: remote agent offline (its card does not answer)';

/** The CHAT answers stored from `agentId`, by text (read from the store itself). */
async function storedAnswers(driver: Driver, c: TestCluster, agentId: number): Promise<string[]> {
  const sql = "SELECT payload FROM messages WHERE sender_id = $1 AND type = 'CHAT' ORDER BY id";
  if (driver === 'postgres') {
    const client = new pg.Client({ connectionString: c.databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ payload: string }>(sql, [agentId])).rows.map((r) => JSON.parse(r.payload) as string);
    } finally {
      await client.end();
    }
  }
  const db = new Database(c.dbEnv['DB_PATH']!, { readonly: true });
  try {
    return (db.prepare(sql.replace('$1', '?')).all(agentId) as Array<{ payload: string }>).map((r) => JSON.parse(r.payload) as string);
  } finally {
    db.close();
  }
}

describeEachDriver('A2A remote agent back-log across a crash of the hub', (driver) => {
  let c: TestCluster;
  let peer: A2aPeer;
  let hub: ClusterNode;
  const sockets: WsClient[] = [];
  beforeAll(async () => {
    peer = await startA2aPeer();
    c = await startCluster({ nodes: 1, driver, env: { A2A_AGENT_CHECK_INTERVAL: '200ms' } });
    hub = c.nodes[0]!;
  }, 90_000);
  afterAll(async () => {
    for (const ws of sockets) await ws.close();
    await c?.stop();
    await peer?.stop();
  });

  const connect = async (token: string, query: Record<string, string | number> = {}) => {
    const ws = await connectWs(hub.url, token, query);
    sockets.push(ws);
    return ws;
  };

  /** Sends a CHAT to the agent and resolves with its stored id (from its echo: a human's frames are echoed, not ACKed). */
  async function send(ws: WsClient, agentId: number, text: string): Promise<number> {
    const localId = uniqueName('chat');
    ws.send({ type: 'CHAT', target_id: agentId, payload: text, local_id: localId });
    const echo = await ws.nextWhere((f) => f.type === 'CHAT' && f.local_id === localId, `the echo of "${text}"`, 10_000);
    return echo.id!;
  }

  const answer = (ws: WsClient, agentId: number, text: string) =>
    ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === agentId && f.payload === `echo: ${text}`, `the answer to "${text}"`, 20_000);

  it('carries a chat answered before the crash no more, and answers the one in flight once, under the same messageId', async () => {
    const username = uniqueName('remote');
    const res = await hub.api.post('/api/users/agents', { username, runtime_kind: 'a2a', card_url: peer.cardUrl }, { token: c.adminToken });
    expect(res.status).toBe(201);
    const agentId = res.body.id as number;
    await hub.waitForLog((l) => l.msg === ONLINE && l.agent === username, { description: 'the agent online', timeoutMs: 15_000 });

    // Two senders: two conversations, carried side by side.
    const [alice, bob] = [await c.createMember(), await c.createMember()];
    const [aliceWs, bobWs] = [await connect(alice.token), await connect(bob.token)];

    // The agent goes away; both chats wait for it in the store.
    let since = hub.logs.length;
    await peer.stop();
    await hub.waitForLog((l) => l.msg === OFFLINE && l.agent === username, { description: 'the agent offline', timeoutMs: 15_000, since });
    const slowId = await send(aliceWs, agentId, 'slow question');
    const quickId = await send(bobWs, agentId, 'quick question');
    expect(slowId).toBeLessThan(quickId);

    // Back: the older chat is received and held (in flight), the newer one answered and its answer stored.
    peer.holdWhen = /slow/;
    const slowReceived = peer.nextMessage();
    await peer.listen();
    await answer(bobWs, agentId, 'quick question');
    expect((await slowReceived).text).toBe('slow question');

    // The hub dies: the mark cannot have passed the chat still in flight, so both are above it.
    await hub.kill('SIGKILL');
    peer.holdWhen = undefined;
    await peer.stop();
    await peer.listen();
    since = hub.logs.length;
    await hub.restart();
    const carried = await hub.waitForLog((l) => l.msg === 'a2a: carrying the chats a remote agent missed' && l.agent === username, {
      description: 'the back-log carried after the restart',
      timeoutMs: 20_000,
      since,
    });
    expect(carried.chats).toBe(2);

    const [aliceAgain, bobAgain] = [await connect(alice.token, { since: slowId }), await connect(bob.token, { since: quickId })];
    await answer(aliceAgain, agentId, 'slow question');
    // A chat after the back-log in Bob's conversation: carried after whatever the back-log carried there.
    await send(bobAgain, agentId, 'next question');
    await answer(bobAgain, agentId, 'next question');

    const received = (text: string) => peer.received.filter((m) => m.text === text);
    // Answered before the crash: not carried again.
    expect(received('quick question')).toHaveLength(1);
    // In flight at the crash: carried again, with the messageId it had the first time.
    const slow = received('slow question');
    expect(slow).toHaveLength(2);
    expect(slow[1]!.messageId).toBe(slow[0]!.messageId);
    expect(received('next question')[0]!.messageId).not.toBe(slow[0]!.messageId);
    // One answer each, stored and delivered.
    expect(await storedAnswers(driver, c, agentId)).toEqual(['echo: quick question', 'echo: slow question', 'echo: next question']);
    expect(bobAgain.received.filter((f) => f.type === 'CHAT' && f.payload === 'echo: quick question')).toHaveLength(1);
  }, 120_000);

  it('ends a streamed answer cut by the crash: the reader sees it interrupted, and the answer after the restart carries its stream_id', async () => {
    const username = uniqueName('remote');
    const res = await hub.api.post('/api/users/agents', { username, runtime_kind: 'a2a', card_url: peer.cardUrl }, { token: c.adminToken });
    expect(res.status).toBe(201);
    const agentId = res.body.id as number;
    await hub.waitForLog((l) => l.msg === ONLINE && l.agent === username, { description: 'the agent online', timeoutMs: 15_000 });

    const alice = await c.createMember();
    const reader = recordingClient({ url: hub.url, token: alice.token });
    try {
      await reader.client.connect();
      // The agent streams the first chunk of its answer, then works on: the hub dies mid-stream.
      peer.cutWhen = /cut question/;
      const cut = peer.streamCut();
      await reader.client.send({ type: 'CHAT', target_id: agentId, payload: 'cut question' });
      await cut;
      const chunk = await reader.waitFor((f) => f.type === 'CHAT_STREAM' && f.sender_id === agentId, 'the first chunk of the answer', 10_000);
      await hub.kill('SIGKILL');
      await reader.waitForInterrupted(() => true, 'the cut stream reported interrupted', 10_000);
      expect(reader.interrupted).toEqual([{ stream_id: chunk.stream_id, sender_id: agentId, conversation_id: chunk.conversation_id }]);

      await peer.stop();
      await peer.listen();
      await hub.restart();
      // The client reconnects by itself (resuming with `since`); the chat is carried again and answered in
      // full. Its chunks and end may go out before the reader is back; the stored CHAT reaches it either way.
      const final = await reader.waitFor(
        (f) => f.type === 'CHAT' && f.sender_id === agentId && f.payload === 'echo: cut question',
        'the answer after the restart',
        30_000,
      );
      expect(final.stream_id).toBe(chunk.stream_id);
      expect(peer.received.filter((m) => m.text === 'cut question')).toHaveLength(2);
      expect(await storedAnswers(driver, c, agentId)).toEqual(['echo: cut question']);
    } finally {
      await reader.client.close();
    }
  }, 120_000);
});
