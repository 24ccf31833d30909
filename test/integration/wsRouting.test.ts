// WebSocket routing over real sockets (wire.md §5): targeted, broadcast, echo, telemetry to humans,
// the Butler↔agent monitor, streams, ACK and idempotency, and POST /api/messages delivered live.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool, type Frame, type WsClient } from '../helpers/wsClient.js';

describeEachDriver('websocket routing', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;
  /** Proves nothing else is on its way to `client`: a marker sent after reaches it first. */
  const assertNothingMoreFor = async (client: WsClient, marker: { from: WsClient; to: number }) => {
    const text = `marker-${Math.random()}`;
    marker.from.send({ type: 'CHAT', payload: text, target_id: marker.to });
    await client.nextWhere((f) => f.payload === text, 'the marker');
    expect(client.pending().filter((f) => f.type !== 'PRESENCE')).toEqual([]);
  };

  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it('delivers targeted chat to every socket of the target, echoes it to the human sender, and ACKs agents', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const tab1 = await connect(member.token);
    const tab2 = await connect(member.token);
    const a = await connect(agent.api_token);

    a.send({
      type: 'CHAT',
      payload: 'to both tabs',
      target_id: member.id,
      local_id: 'a-1',
      sender_id: 1,
      sender_name: 'forged',
      id: 999,
      timestamp: '2000-01-01T00:00:00.000Z',
    });
    const [f1, f2, ack] = await Promise.all([tab1.next('CHAT'), tab2.next('CHAT'), a.next('ACK')]);
    expect(f1).toEqual(f2);
    expect(f1).toMatchObject({
      type: 'CHAT',
      payload: 'to both tabs',
      sender_id: agent.id,
      sender_name: agent.username,
      sender_role: 'AGENT',
      target_id: member.id,
      local_id: 'a-1',
    });
    expect(f1.id).not.toBe(999);
    expect(f1.timestamp).not.toBe('2000-01-01T00:00:00.000Z');
    expect(f1.conversation_id).toEqual(expect.any(Number));
    expect(ack).toEqual({ type: 'ACK', local_id: 'a-1', id: f1.id, timestamp: f1.timestamp });

    tab1.send({ type: 'CHAT', payload: 'reply', target_id: agent.id });
    const [atAgent, echo1, echo2] = await Promise.all([a.next('CHAT'), tab1.next('CHAT'), tab2.next('CHAT')]);
    expect(atAgent).toMatchObject({ payload: 'reply', sender_id: member.id, sender_role: 'MEMBER', conversation_id: f1.conversation_id });
    expect(echo1).toEqual(atAgent);
    expect(echo2).toEqual(atAgent);
    // A human sender gets no ACK (the echo confirms); an agent gets no echo of its own chat.
    await assertNothingMoreFor(a, { from: tab1, to: agent.id });
    expect(tab1.pending().filter((f) => f.type === 'ACK')).toEqual([]);
  });

  it('broadcasts untargeted chat to everyone but a machine sender; a human sender gets its echo', async () => {
    const agent = await t.createAgent();
    const other = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const b = await connect(other.api_token);
    const m = await connect(member.token);
    const admin = await connect(t.adminToken);

    a.send({ type: 'CHAT', payload: 'hello all' });
    const got = await Promise.all([b.next('CHAT'), m.next('CHAT'), admin.next('CHAT')]);
    for (const f of got) expect(f).toMatchObject({ payload: 'hello all', sender_id: agent.id, id: expect.any(Number) });
    expect(got[0]).not.toHaveProperty('target_id');

    m.send({ type: 'CHAT', payload: 'from a human' });
    const back = await Promise.all([a.next('CHAT'), b.next('CHAT'), m.next('CHAT'), admin.next('CHAT')]);
    for (const f of back) expect(f).toMatchObject({ payload: 'from a human', sender_id: member.id });
    await assertNothingMoreFor(a, { from: m, to: agent.id });
  });

  it('sends telemetry to human sockets only, stores it and updates presence', async () => {
    const agent = await t.createAgent();
    const other = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const b = await connect(other.api_token);
    const m = await connect(member.token);

    for (const [type, payload] of [
      ['SYSTEM_LOG', { level: 'SUCCESS', content: 'deployed' }],
      ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3 }],
      ['CODE_REVIEW', 'looks fine'],
      ['SECURITY_ALERT', { severity: 'high', content: 'secret in repo' }],
    ] as const) {
      a.send({ type, payload });
      const f = await m.next(type);
      expect(f).toMatchObject({ type, payload, sender_id: agent.id, id: expect.any(Number) });
    }
    await assertNothingMoreFor(b, { from: m, to: other.id });
    const listed = await t.api.get(`/api/messages?agent_id=${agent.username}`, { token: member.token });
    expect(listed.body.map((x: { type: string }) => x.type)).toEqual(['SECURITY_ALERT', 'CODE_REVIEW', 'WEATHER_UPDATE', 'SYSTEM_LOG']);
    const status = await t.api.get('/api/users/agents/status', { token: member.token });
    // The latest report, whatever its type, is the agent's last_report.
    expect(status.body.find((s: { id: number }) => s.id === agent.id)).toMatchObject({
      online: true,
      status: 'ONLINE',
      last_report: 'Security alert (high): secret in repo',
    });
  });

  it('refreshes last_report and last_seen_at with every report an agent sends, not only SYSTEM_LOG', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token);
    const a = await connect(agent.api_token);
    await m.nextWhere(
      (f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.last_report === 'websocket_connected',
      'the connect PRESENCE',
    );
    const presenceAfter = async (type: string, payload: unknown) => {
      a.send({ type, payload, sender_id: 1, sender_name: 'forged', timestamp: '2000-01-01T00:00:00Z' });
      const report = await m.next(type);
      const presence = await m.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id, `the PRESENCE after ${type}`);
      expect(presence.payload.last_seen_at, type).toBe(report.timestamp);
      return presence.payload.last_report as string;
    };
    expect(await presenceAfter('WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3.5, conditions: 'light snow', content: 'ignored\nfor the line' })).toBe(
      'Weather in Oslo: -3.5 °C, light snow',
    );
    expect(await presenceAfter('CODE_REVIEW', { verdict: 'request_changes', content: '2 findings in\n1 file' })).toBe(
      'Code review (request changes): 2 findings in 1 file',
    );
    expect(await presenceAfter('SECURITY_ALERT', 'plain text alert')).toBe('Security alert: plain text alert');
    const weather = await presenceAfter('WEATHER_UPDATE', 'Sunny, 21 °C');
    expect(weather).toBe('Weather: Sunny, 21 °C');
    const listed = (await t.api.get(`/api/users/agents?q=${agent.username}`, { token: member.token })).body[0];
    expect(listed).toMatchObject({ online: true, last_report: 'Weather: Sunny, 21 °C' });
    const row = await t.hub.store.db
      .selectFrom('messages')
      .select('created_at')
      .where('sender_id', '=', agent.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(listed.last_seen_at).toBe(row.created_at);
  });

  it('leaves presence alone when an agent reports to one person: only reports to everyone become last_report', async () => {
    const agent = await t.createAgent();
    const [m1, m2] = [await t.createMember(), await t.createMember()];
    const s1 = await connect(m1.token);
    const s2 = await connect(m2.token);
    const a = await connect(agent.api_token);
    const presenceOf = (client: WsClient, report: string) =>
      client.nextWhere((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id && f.payload.last_report === report, `the PRESENCE "${report}"`);
    for (const s of [s1, s2]) await presenceOf(s, 'websocket_connected');
    a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'public line' } });
    const before = await presenceOf(s1, 'public line');
    await presenceOf(s2, 'public line');
    for (const s of [s1, s2]) await s.next('SYSTEM_LOG');
    const listedBefore = (await t.api.get(`/api/users/agents?q=${agent.username}`, { token: m1.token })).body[0];

    for (const [type, payload] of [
      ['SYSTEM_LOG', { level: 'WARNING', content: 'for m2 only' }],
      ['SECURITY_ALERT', { severity: 'high', content: 'm2 leaked a key' }],
    ] as const) {
      a.send({ type, payload, target_id: m2.id });
      // m2 gets the report itself...
      expect(await s2.next(type)).toMatchObject({ type, payload, target_id: m2.id, sender_id: agent.id });
    }
    // ...and nobody gets a PRESENCE for it: a marker sent after reaches m1 with nothing before it.
    await assertNothingMoreFor(s1, { from: s2, to: m1.id });
    expect(s1.pending().filter((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id)).toEqual([]);
    expect(s2.pending().filter((f) => f.type === 'PRESENCE' && f.payload.user_id === agent.id)).toEqual([]);
    // The lists show what they showed before, to m1 and to m2 alike.
    for (const token of [m1.token, m2.token]) {
      const listed = (await t.api.get(`/api/users/agents?q=${agent.username}`, { token })).body[0];
      expect(listed).toMatchObject({ last_report: 'public line', last_seen_at: listedBefore.last_seen_at });
      const status = (await t.api.get('/api/users/agents/status', { token })).body.find((x: { id: number }) => x.id === agent.id);
      expect(status).toMatchObject({ last_report: 'public line', last_seen_at: before.payload.last_seen_at });
    }
  });

  it('copies Butler↔agent chat to admins as BUTLER_AGENT_MESSAGE, never to members', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const m = await connect(member.token);
    const admin = await connect(t.adminToken);

    a.send({ type: 'CHAT', payload: 'report for Butler', target_id: 2, local_id: 'to-butler' });
    const ack = await a.next('ACK');
    const copy = await admin.next('BUTLER_AGENT_MESSAGE');
    expect(copy).toMatchObject({
      type: 'BUTLER_AGENT_MESSAGE',
      id: ack.id,
      payload: {
        agent_id: agent.id,
        type: 'CHAT',
        sender_id: agent.id,
        sender_role: 'AGENT',
        sender_name: agent.username,
        payload: 'report for Butler',
        id: ack.id,
      },
    });
    // Not a thread between a human and a machine: no conversation.
    expect(copy).not.toHaveProperty('conversation_id');
    await assertNothingMoreFor(m, { from: a, to: member.id });
    expect(admin.pending().filter((f) => f.type === 'CHAT')).toEqual([]);
  });

  it('relays stream chunks unstored, in order, then stores the final CHAT with its stream_id', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const m = await connect(member.token);

    for (const chunk of ['Hel', 'lo ', 'world']) a.send({ type: 'CHAT_STREAM', payload: chunk, target_id: member.id, stream_id: 's-1' });
    a.send({ type: 'CHAT', payload: 'Hello world', target_id: member.id, stream_id: 's-1', local_id: 'final' });
    a.send({ type: 'CHAT_STREAM_END', target_id: member.id, stream_id: 's-1' });
    const end = await m.next('CHAT_STREAM_END');
    const frames = m.received.filter((f) => f.stream_id === 's-1');
    expect(frames.map((f) => [f.type, f.payload])).toEqual([
      ['CHAT_STREAM', 'Hel'],
      ['CHAT_STREAM', 'lo '],
      ['CHAT_STREAM', 'world'],
      ['CHAT', 'Hello world'],
      ['CHAT_STREAM_END', ''],
    ]);
    expect(frames.filter((f) => f.type !== 'CHAT').every((f) => f.id === undefined)).toBe(true);
    const conversation = frames[3]!.conversation_id;
    expect(frames.every((f) => f.conversation_id === conversation)).toBe(true);
    expect(end.conversation_id).toEqual(expect.any(Number));

    const history = await t.api.get(`/api/chat/history/${agent.id}`, { token: member.token });
    expect(history.body.map((r: Frame) => [r.type, r.payload, r.stream_id])).toEqual([['CHAT', 'Hello world', 's-1']]);
  });

  it('stores a repeated local_id once: the agent gets the same ACK, the target one frame', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const a = await connect(agent.api_token);
    const m = await connect(member.token);

    a.send({ type: 'CHAT', payload: 'once', target_id: member.id, local_id: 'dup' });
    a.send({ type: 'CHAT', payload: 'once', target_id: member.id, local_id: 'dup' });
    const [first, second] = [await a.next('ACK'), await a.next('ACK')];
    expect(second).toEqual(first);
    a.send({ type: 'CHAT', payload: 'once', target_id: member.id, local_id: 'dup' });
    expect(await a.next('ACK')).toEqual(first);
    await m.next('CHAT');
    await assertNothingMoreFor(m, { from: a, to: member.id });
    const rows = await t.hub.store.db.selectFrom('messages').select('id').where('sender_id', '=', agent.id).where('local_id', '=', 'dup').execute();
    expect(rows).toEqual([{ id: first.id }]);

    // A human's repeat is echoed again to its own socket only, with the original id.
    m.send({ type: 'CHAT', payload: 'human once', target_id: agent.id, local_id: 'h-dup' });
    const echo = await m.next('CHAT');
    await a.next('CHAT');
    m.send({ type: 'CHAT', payload: 'human once', target_id: agent.id, local_id: 'h-dup' });
    expect(await m.next('CHAT')).toEqual(echo);
    await assertNothingMoreFor(a, { from: m, to: agent.id });
  });

  it('delivers POST /api/messages live like the same frame', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token);
    const res = await t.api.post('/api/messages', { type: 'SYSTEM_LOG', payload: { level: 'WARNING', content: 'disk 91%' } }, { token: agent.api_token });
    expect(res.status).toBe(201);
    const f = await m.next('SYSTEM_LOG');
    expect(f).toMatchObject({ id: res.body.id, sender_id: agent.id, payload: { level: 'WARNING', content: 'disk 91%' }, timestamp: res.body.timestamp });
  });

  it('puts id, agent_id and timestamp into every delivered telemetry payload, as the older v1 dashboard reads a row', async () => {
    const agent = await t.createAgent();
    const member = await t.createMember();
    const m = await connect(member.token);
    const a = await connect(agent.api_token);
    const forged = { sender_id: 1, sender_name: 'forged', timestamp: '2000-01-01T00:00:00Z' };
    a.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'first' }, ...forged });
    a.send({ type: 'SYSTEM_LOG', payload: { level: 'ERROR', content: 'second' }, ...forged });
    a.send({ type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -3, content: 'Oslo -3 °C' }, ...forged });
    a.send({ type: 'CODE_REVIEW', payload: 'LGTM (plain text, as older agents report)', ...forged });
    const frames = [await m.next('SYSTEM_LOG'), await m.next('SYSTEM_LOG'), await m.next('WEATHER_UPDATE'), await m.next('CODE_REVIEW')];
    for (const f of frames.slice(0, 3)) {
      expect(f.payload).toMatchObject({ id: f.id, agent_id: agent.username, timestamp: f.timestamp });
      expect(Date.parse(f.payload.timestamp as string)).not.toBeNaN();
    }
    expect(frames[0]!.payload).toEqual({ level: 'INFO', content: 'first', id: frames[0]!.id, agent_id: agent.username, timestamp: frames[0]!.timestamp });
    expect(frames[1]!.payload.id).not.toBe(frames[0]!.payload.id);
    expect(frames[2]!.payload).toMatchObject({ location: 'Oslo', temperature_c: -3, content: 'Oslo -3 °C' });
    // Text stays text; its row is in the envelope.
    expect(frames[3]!.payload).toBe('LGTM (plain text, as older agents report)');
    // The stored payload is what the agent sent.
    const row = await t.hub.store.db.selectFrom('messages').select('payload').where('id', '=', frames[0]!.id!).executeTakeFirstOrThrow();
    expect(JSON.parse(row.payload)).toEqual({ level: 'INFO', content: 'first' });
  });

  describe('threads', () => {
    it('puts chat in the default thread unless the frame names one of the pair, and refuses others', async () => {
      const agent = await t.createAgent();
      const member = await t.createMember();
      const stranger = await t.createMember();
      const a = await connect(agent.api_token);
      const m = await connect(member.token);

      const created = await t.api.post('/api/chat/threads', { peer_id: agent.id, title: 'Deploy' }, { token: member.token });
      expect(created.status).toBe(201);
      m.send({ type: 'CHAT', payload: 'in Deploy', target_id: agent.id, conversation_id: created.body.id });
      await m.next('CHAT'); // the echo
      expect(await a.next('CHAT')).toMatchObject({ payload: 'in Deploy', conversation_id: created.body.id });
      a.send({ type: 'CHAT', payload: 'answer in Deploy', target_id: member.id, conversation_id: created.body.id, local_id: 'd1' });
      expect(await m.next('CHAT')).toMatchObject({ payload: 'answer in Deploy', conversation_id: created.body.id });
      const inThread = await t.api.get(`/api/chat/threads/${created.body.id}/messages`, { token: member.token });
      expect(inThread.body.map((r: Frame) => r.payload)).toEqual(['in Deploy', 'answer in Deploy']);

      const foreign = await t.api.post('/api/chat/threads', { peer_id: agent.id }, { token: stranger.token });
      a.send({ type: 'CHAT', payload: 'wrong thread', target_id: member.id, conversation_id: foreign.body.id, local_id: 'bad-thread' });
      const error = await a.next('ERROR');
      expect(error).toEqual({
        type: 'ERROR',
        local_id: 'bad-thread',
        payload: { code: 'bad_request', message: expect.stringContaining(`conversation ${foreign.body.id}`) },
      });
      a.send({ type: 'CHAT', payload: 'no such thread', target_id: member.id, conversation_id: 987654, local_id: 'gone' });
      expect(await a.next('ERROR')).toMatchObject({ local_id: 'gone', payload: { code: 'not_found', message: 'conversation 987654 not found' } });
      const stored = await t.hub.store.db.selectFrom('messages').select('id').where('content', 'in', ['wrong thread', 'no such thread']).execute();
      expect(stored).toEqual([]);
    });
  });
});
