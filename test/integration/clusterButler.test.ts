// Butler in a cluster of three hub processes: it runs on the lease holder only, answers askers on
// any node, and survives its node's kill -9: another node takes the lease within 10 s, a pending
// authorization approved afterwards still runs its command, and an answer that was streaming when
// the leader died is ended with what it had said and a note.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { askButler, BUTLER_ID, nextAnswer } from '../helpers/butler.js';
import { startCluster, type ClusterNode, type TestCluster } from '../helpers/cluster.js';
import { startFakeModel, type FakeModel } from '../helpers/fakeModel.js';
import { connectWs, type Frame, type WsClient } from '../helpers/wsClient.js';

interface NodeSection {
  id: string;
  leader: boolean;
  peers: string[];
}

async function nodeSection(c: TestCluster, node: ClusterNode): Promise<NodeSection | undefined> {
  const res = await node.api.get('/api/admin/actors', { token: c.adminToken });
  return res.status === 200 ? (res.body.node as NodeSection) : undefined;
}

/** The node holding the lease, once exactly one of `among` says it does (polled: leadership has no event to wait on from outside). */
async function leaderAmong(c: TestCluster, among: ClusterNode[], timeoutMs = 10_000): Promise<ClusterNode> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sections = await Promise.all(among.map((n) => nodeSection(c, n).catch(() => undefined)));
    const leaders = among.filter((_, i) => sections[i]?.leader);
    if (leaders.length === 1) return leaders[0]!;
    if (Date.now() > deadline) throw new Error(`no single leader among ${among.map((n) => n.id).join(', ')} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const isDirective = (f: Frame) => f.type === 'CHAT' && f.sender_id === BUTLER_ID && typeof f.payload === 'string' && f.payload.startsWith('[DIRECTIVE]');

describe.skipIf(!inject('pgUrl'))('Butler across nodes [postgres + redis]', () => {
  let c: TestCluster;
  let model: FakeModel;
  const sockets: WsClient[] = [];
  const connect = async (node: ClusterNode, token: string, query: Record<string, string | number> = {}) => {
    const client = await connectWs(node.url, token, query);
    sockets.push(client);
    return client;
  };

  beforeAll(async () => {
    model = await startFakeModel();
    c = await startCluster({
      nodes: 3,
      env: { CLUSTER_NODE_TTL: '3s', BUTLER_BASE_URL: model.baseUrl, BUTLER_MODEL: 'fake-model', BUTLER_STREAM_FLUSH_MS: '0' },
    });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.close().catch(() => undefined)));
    await c?.stop();
    await model?.close();
  });

  it('runs on one node, answers an asker on another, and after the leader is killed a pending approval still runs its command', async () => {
    const leader = await leaderAmong(c, c.nodes);
    const others = c.nodes.filter((n) => n !== leader);
    const [askerNode, agentNode] = [others[0]!, others[1]!];
    const member = await c.createMember();
    const worker = await c.createAgent();
    const human = await connect(askerNode, member.token);
    await connect(agentNode, worker.api_token);
    // Presence is stored before anything the human sends next, so Butler knows the agent is online.
    await human.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === worker.id && f.payload.online === true, 'the agent online');

    // The model asks to run a command on the agent (a tool call: an authorization request), then says so.
    model.enqueue(
      {
        steps: [
          {
            toolCall: {
              name: 'command_agent',
              arguments: JSON.stringify({ target_agent_id: worker.id, command: 'flush the queue', reasoning: 'the user asked' }),
            },
          },
        ],
      },
      { steps: [{ content: 'I asked for your approval.' }] },
    );
    const echo = await askButler(human, `please have ${worker.username} flush the queue`);
    const request = await human.next('AUTH_REQUEST', 15_000);
    expect(request.payload).toMatchObject({ target_agent_name: worker.username, command: 'flush the queue', status: 'PENDING' });
    expect((await nextAnswer(human, { conversationId: echo.conversation_id })).text).toContain('I asked for your approval.');

    await leader.kill('SIGKILL');
    const successor = await leaderAmong(c, others);

    // Approved through the node that is not the new leader: the decision travels to it.
    const approver = others.find((n) => n !== successor)!;
    const res = await approver.api.post('/api/chat/auth/response', { action_id: request.payload.action_id, approved: true }, { token: member.token });
    expect(res.status).toBe(200);
    const agentSocket = sockets[1]!;
    const directive = await agentSocket.nextWhere(isDirective, 'the directive', 15_000);
    expect(directive.payload).toBe('[DIRECTIVE] flush the queue');
    agentSocket.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'queue flushed', stream_id: directive.stream_id });
    const outcome = await nextAnswer(human, { conversationId: echo.conversation_id, timeoutMs: 15_000 });
    expect(outcome.text).toBe(`${worker.username} carried out \`flush the queue\`:\n\nqueue flushed`);
    await leader.restart();
  }, 60_000);

  it('ends an answer that was streaming when the leader died, with what it had said and a note', async () => {
    const leader = await leaderAmong(c, c.nodes);
    const askerNode = c.nodes.find((n) => n !== leader)!;
    const member = await c.createMember();
    const human = await connect(askerNode, member.token);
    model.enqueue({ steps: [{ content: 'The first half of the answer' }, { hang: true }] });
    const echo = await askButler(human, 'tell me something long');
    const chunk = await human.nextWhere((f) => f.type === 'CHAT_STREAM' && f.sender_id === BUTLER_ID, 'the first chunk', 15_000);
    expect(chunk.payload).toBe('The first half of the answer');

    await leader.kill('SIGKILL');
    const final = await human.nextWhere((f) => f.type === 'CHAT' && f.stream_id === chunk.stream_id, 'the ended answer', 15_000);
    expect(final.payload).toContain('The first half of the answer');
    expect(final.payload).toContain('the hub node writing it stopped');
    expect(final.conversation_id).toBe(echo.conversation_id);
    await human.nextWhere((f) => f.type === 'CHAT_STREAM_END' && f.stream_id === chunk.stream_id, 'the end marker');
    await leader.restart();
  }, 60_000);
});
