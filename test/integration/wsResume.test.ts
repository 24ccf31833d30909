// Resume with `?since=<id>`: stored frames addressed or broadcast to the user are replayed in order
// by the live routing rules, then live frames follow with no gap and no duplicate, also while
// messages keep arriving during the replay.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { nextAnswer } from '../helpers/butler.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool, type Frame } from '../helpers/wsClient.js';

describeEachDriver('websocket resume', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;
  const ids = (frames: Frame[]) => frames.filter((f) => f.id !== undefined).map((f) => f.id!);

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('replays what a user missed, by the routing rules, in order', async () => {
    const agent = await t.createAgent();
    const other = await t.createAgent();
    const member = await t.createMember();
    const bystander = await t.createMember();
    const since = await t.lastMessageId();
    const a = await connect(agent.api_token);
    const o = await connect(other.api_token);
    a.send({ type: 'CHAT', payload: 'to member', target_id: member.id, local_id: '1' });
    a.send({ type: 'CHAT', payload: 'to bystander', target_id: bystander.id, local_id: '2' });
    a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'telemetry' }, local_id: '3' });
    a.send({ type: 'CHAT', payload: 'broadcast by agent', local_id: '4' });
    a.send({ type: 'CHAT', payload: 'agent to Butler', target_id: 2, local_id: '5' });
    o.send({ type: 'CHAT', payload: 'to agent', target_id: agent.id, local_id: '6' });
    for (let i = 0; i < 5; i++) await a.next('ACK');
    await o.next('ACK');
    // Butler answers the agent (a stored CHAT, copied to admins too).
    const butlerAnswer = await nextAnswer(a);

    const m = await connect(member.token, { since });
    await m.nextWhere((f) => f.payload === 'broadcast by agent', 'the last replayed frame');
    expect(m.received.filter((f) => f.type !== 'PRESENCE').map((f) => [f.type, f.payload])).toEqual([
      ['CHAT', 'to member'],
      ['SYSTEM_LOG', { level: 'INFO', content: 'telemetry', id: expect.any(Number), agent_id: agent.username, timestamp: expect.any(String) }],
      ['CHAT', 'broadcast by agent'],
    ]);
    // The replayed payload is a whole log row for the older dashboard, as it is live.
    const log = m.received.find((f) => f.type === 'SYSTEM_LOG')!;
    expect(log.payload).toMatchObject({ id: log.id, timestamp: log.timestamp });

    const admin = await connect(t.adminToken, { since });
    await admin.nextWhere((f) => f.type === 'BUTLER_AGENT_MESSAGE' && f.payload.sender_id === 2, "the copy of Butler's answer");
    expect(admin.received.filter((f) => f.type !== 'PRESENCE').map((f) => [f.type, f.payload.content ?? f.payload.payload ?? f.payload])).toEqual([
      ['SYSTEM_LOG', 'telemetry'],
      ['CHAT', 'broadcast by agent'],
      ['BUTLER_AGENT_MESSAGE', 'agent to Butler'],
      ['BUTLER_AGENT_MESSAGE', butlerAnswer.text],
    ]);

    // The agent: targeted chat to it (from the other agent and Butler's stored answer), not its own
    // broadcast, no telemetry.
    const a2 = await connect(agent.api_token, { since });
    await a2.nextWhere((f) => f.payload === 'to agent', 'the chat to the agent');
    await a2.nextWhere((f) => f.id === butlerAnswer.final.id, "Butler's stored answer");
    expect(
      a2.received
        .filter((f) => f.type !== 'PRESENCE')
        .map((f) => f.payload)
        .sort(),
    ).toEqual(['to agent', butlerAnswer.text].sort());
    expect(ids(a2.received)).toEqual([...ids(a2.received)].sort((x, y) => x - y));
    expect(ids(m.received)).toEqual([...ids(m.received)].sort((x, y) => x - y));
  });

  it('has no gap and no duplicate when messages race the replay', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const since = await t.lastMessageId();
    const a = await connect(agent.api_token);
    // Enough history that the replay takes several pages.
    const backlog = 1500;
    for (let i = 0; i < backlog; i++) a.send({ type: 'CHAT', payload: `old ${i}`, target_id: member.id, local_id: `old-${i}` });
    await a.nextWhere((f) => f.type === 'ACK' && f.local_id === `old-${backlog - 1}`, 'the last backlog ACK', 20_000);

    // Keep sending while the member reconnects and replays.
    const racing = 400;
    let sent = 0;
    const sendSome = () => {
      for (let i = 0; i < 20 && sent < racing; i++, sent++) a.send({ type: 'CHAT', payload: `new ${sent}`, target_id: member.id, local_id: `new-${sent}` });
      if (sent < racing) setImmediate(sendSome);
    };
    sendSome();
    const m = await connect(member.token, { since });
    await m.nextWhere((f) => f.payload === `new ${racing - 1}`, 'the last racing message', 20_000);

    const got = ids(m.received.filter((f) => f.type === 'CHAT'));
    const stored = (
      await t.hub.store.db.selectFrom('messages').select('id').where('target_id', '=', member.id).where('id', '>', since).orderBy('id').execute()
    ).map((r) => r.id);
    expect(stored).toHaveLength(backlog + racing);
    expect(got).toEqual(stored);
  });

  it('replays nothing for a since at or past the newest id, then goes live', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token, { since: (await t.lastMessageId()) + 1000 });
    const a = await connect(agent.api_token);
    a.send({ type: 'CHAT', payload: 'live', target_id: member.id });
    const live = await m.next('CHAT');
    expect(live.payload).toBe('live');
    expect(m.received.filter((f) => f.type === 'CHAT')).toHaveLength(1);
  });
});
