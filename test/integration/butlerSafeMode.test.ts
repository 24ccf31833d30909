// Butler without a language model (safe mode), over real sockets: the stream sequence, listing
// agents, `@agent text` relays under the approval policy (approve, reject, expire, wrong approver,
// double answer, restart), directive/answer correlation, agent-to-agent relay and the monitor.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUTLER_ID, askButler, nextAnswer } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { connectWs, wsClientPool, type Frame, type WsClient } from '../helpers/wsClient.js';

/** The agent's side of a directive: the next CHAT from Butler that starts with [DIRECTIVE]. */
const nextDirective = (agent: WsClient) =>
  agent.nextWhere((f) => f.type === 'CHAT' && f.sender_id === BUTLER_ID && String(f.payload).startsWith('[DIRECTIVE] '), 'a directive from Butler');

const answerDirective = (agent: WsClient, directive: Frame, text: string, withStreamId = true) =>
  agent.send({ type: 'CHAT', target_id: BUTLER_ID, payload: text, ...(withStreamId ? { stream_id: directive.stream_id } : {}) });

describeEachDriver('Butler in safe mode', (driver) => {
  let t: TestHub;
  const clients = wsClientPool(() => t.url);
  const connect = clients.connect;

  beforeAll(async () => {
    t = await startTestHub(driver, { BUTLER_AGENT_REPLY_TIMEOUT: '5s' });
  });
  afterEach(() => clients.closeAll());
  afterAll(() => t.stop());

  it("says in Butler's presence that it runs in safe mode", async () => {
    const butler = await t.api.get('/api/users/butler', { token: t.adminToken });
    expect(butler.body).toMatchObject({ online: true, last_report: 'running in the hub, in safe mode (no language model configured)' });
  });

  /** A human asks `@agent text`; resolves with the AUTH_REQUEST and Butler's answer saying it waits. */
  async function requestCommand(human: WsClient, agentName: string, command: string) {
    const echo = await askButler(human, `@${agentName} ${command}`);
    const [request, answer] = await Promise.all([human.next('AUTH_REQUEST'), nextAnswer(human, { conversationId: echo.conversation_id })]);
    return { echo, request, answer };
  }

  it("answers every message with CHAT_STREAM chunks, one stored CHAT and CHAT_STREAM_END, in the asker's conversation", async () => {
    const member = await t.createMember();
    const human = await connect(member.token);
    const echo = await askButler(human, 'hello there');
    expect(echo.conversation_id).toEqual(expect.any(Number));

    const answer = await nextAnswer(human);
    expect(answer.frames.map((f) => f.type)).toEqual([...answer.chunks.map(() => 'CHAT_STREAM'), 'CHAT', 'CHAT_STREAM_END']);
    expect(answer.chunks.length).toBeGreaterThan(0);
    expect(answer.chunks.join('')).toBe(answer.text);
    expect(answer.text).toMatch(/^Hello, member-.*safe mode/s);
    for (const frame of answer.frames) {
      expect(frame).toMatchObject({
        sender_id: BUTLER_ID,
        sender_name: 'Butler',
        sender_role: 'BUTLER',
        target_id: member.id,
        conversation_id: echo.conversation_id,
        stream_id: answer.streamId,
      });
    }
    expect(answer.final.id).toBeGreaterThan(echo.id!);
    expect(answer.end.payload).toBe('');

    // The final CHAT is stored: it is in the conversation's history.
    const history = await t.api.get(`/api/chat/history/${BUTLER_ID}`, { token: member.token });
    expect(history.body.map((m: { payload: string }) => m.payload)).toEqual(['hello there', answer.text]);
  });

  it('lists agents with their presence on request', async () => {
    const online = await t.createAgent();
    const offline = await t.createAgent();
    const agent = await connect(online.api_token);
    agent.send({ type: 'SYSTEM_LOG', payload: { level: 'SUCCESS', content: 'ready for work' }, local_id: 'hello' });
    await agent.next('ACK');
    const human = await connect(t.adminToken);
    await askButler(human, 'agents');
    const { text } = await nextAnswer(human);
    expect(text).toContain(`- ${online.username} (id ${online.id}): online — ready for work`);
    expect(text).toContain(`- ${offline.username} (id ${offline.id}): offline`);
  });

  it("lists an agent's latest typed report as its last report", async () => {
    const reporter = await t.createAgent();
    const agent = await connect(reporter.api_token);
    agent.send({ type: 'WEATHER_UPDATE', payload: { location: 'Bergen', temperature_c: 7, conditions: 'rain' }, local_id: 'weather' });
    await agent.next('ACK');
    const human = await connect(t.adminToken);
    await askButler(human, 'agents');
    expect((await nextAnswer(human)).text).toContain(`- ${reporter.username} (id ${reporter.id}): online — Weather in Bergen: 7 °C, rain`);
  });

  it("relays `@agent text` once the asker approves: AUTH_REQUEST, AUTH_STATUS_UPDATE, directive with a stream_id, the agent's answer back", async () => {
    const member = await t.createMember();
    const worker = await t.createAgent();
    const human = await connect(member.token);
    const agent = await connect(worker.api_token);
    const admin = await connect(t.adminToken);

    const { echo, request, answer } = await requestCommand(human, worker.username, 'restart the cache');
    expect(request).toMatchObject({
      type: 'AUTH_REQUEST',
      sender_id: BUTLER_ID,
      target_id: member.id,
      conversation_id: echo.conversation_id,
      payload: { target_agent_id: worker.id, target_agent_name: worker.username, command: 'restart the cache', status: 'PENDING' },
    });
    expect(request.id).toEqual(expect.any(Number));
    const actionId = request.payload.action_id as string;
    expect(answer.text).toContain(`I have asked you to approve sending \`restart the cache\` to ${worker.username} (request ${actionId})`);
    // Nothing reaches the agent before the approval.
    expect(agent.pending().filter((f) => f.type === 'CHAT')).toEqual([]);

    const res = await t.api.post('/api/chat/auth/response', { action_id: actionId, approved: true }, { token: member.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'processed', action_id: actionId, result: `approved: the command is being sent to ${worker.username}` });
    expect((await human.next('AUTH_STATUS_UPDATE')).payload).toEqual({ action_id: actionId, status: 'APPROVED' });

    const directive = await nextDirective(agent);
    expect(directive).toMatchObject({ payload: '[DIRECTIVE] restart the cache', target_id: worker.id, stream_id: expect.stringMatching(/^butler-/) });
    answerDirective(agent, directive, 'cache restarted in 42 ms');
    const result = await nextAnswer(human, { conversationId: echo.conversation_id });
    expect(result.text).toBe(`${worker.username} carried out \`restart the cache\`:\n\ncache restarted in 42 ms`);

    // The monitor: admins see both sides of the Butler↔agent exchange as BUTLER_AGENT_MESSAGE.
    const monitored = [
      await admin.nextWhere((f) => f.type === 'BUTLER_AGENT_MESSAGE' && f.payload.sender_id === BUTLER_ID, 'the directive copy'),
      await admin.nextWhere((f) => f.type === 'BUTLER_AGENT_MESSAGE' && f.payload.sender_id === worker.id, 'the answer copy'),
    ];
    expect(monitored.map((f) => f.payload.payload)).toEqual(['[DIRECTIVE] restart the cache', 'cache restarted in 42 ms']);
    expect(monitored.every((f) => f.payload.agent_id === worker.id)).toBe(true);
    // The answer names the directive it answers, as the stored rows do.
    expect(monitored[0]!.payload.stream_id).toMatch(/^butler-/);
    expect(monitored[1]!.payload.stream_id).toBe(monitored[0]!.payload.stream_id);
    expect(human.pending().filter((f) => f.type === 'BUTLER_AGENT_MESSAGE')).toEqual([]);
    const page = await t.api.get(`/api/chat/butler-agent/${worker.id}`, { token: t.adminToken });
    expect(page.body.map((m: { payload: string }) => m.payload)).toEqual(['[DIRECTIVE] restart the cache', 'cache restarted in 42 ms']);
    expect((await t.api.get(`/api/chat/butler-agent/${worker.id}`, { token: member.token })).status).toBe(403);

    // History shows the request with its outcome, also after a resume.
    const history = await t.api.get(`/api/chat/history/${BUTLER_ID}`, { token: member.token });
    const stored = history.body.find((m: { type: string }) => m.type === 'AUTH_REQUEST');
    expect(JSON.parse(stored.payload)).toMatchObject({ action_id: actionId, status: 'APPROVED' });
    const resumed = await connect(member.token, { since: echo.id! });
    expect((await resumed.next('AUTH_REQUEST')).payload.status).toBe('APPROVED');
  });

  it('answers a rejection over the AUTH_RESPONSE frame without sending anything to the agent, and tells the admins', async () => {
    const member = await t.createMember();
    const worker = await t.createAgent();
    const human = await connect(member.token);
    const agent = await connect(worker.api_token);
    // Admins may answer and list any request, so they hear its outcome too (their approvals list).
    const admin = await connect(t.adminToken);
    const { request, echo } = await requestCommand(human, worker.username, 'drop the table');
    human.send({ type: 'AUTH_RESPONSE', payload: { action_id: request.payload.action_id, approved: false } });
    expect((await human.next('AUTH_STATUS_UPDATE')).payload).toEqual({ action_id: request.payload.action_id, status: 'REJECTED' });
    await admin.nextWhere(
      (f) => f.type === 'AUTH_STATUS_UPDATE' && (f.payload as { action_id: string }).action_id === request.payload.action_id,
      "the admin's update",
    );
    const result = await nextAnswer(human, { conversationId: echo.conversation_id });
    expect(result.text).toBe(`Not sending \`drop the table\` to ${worker.username}: the request was rejected.`);
    // A marker from the human reaches the agent first: no directive was on its way.
    human.send({ type: 'CHAT', target_id: worker.id, payload: 'marker' });
    await agent.nextWhere((f) => f.payload === 'marker', 'the marker');
    expect(agent.pending().filter((f) => f.type === 'CHAT')).toEqual([]);
  });

  it('lets only the asker or an admin answer, once: 403, 404, 409, 400, and machines refused', async () => {
    const member = await t.createMember();
    const other = await t.createMember();
    const worker = await t.createAgent();
    const human = await connect(member.token);
    await connect(worker.api_token);
    const { request } = await requestCommand(human, worker.username, 'rotate logs');
    const actionId = request.payload.action_id as string;
    const answer = (token: string, body: unknown) => t.api.post('/api/chat/auth/response', body, { token });

    expect(await answer(other.token, { action_id: actionId, approved: true })).toMatchObject({
      status: 403,
      body: { error: 'this authorization request was sent to another user' },
    });
    expect(await answer(worker.api_token, { action_id: actionId, approved: true })).toMatchObject({
      status: 403,
      body: { error: 'only human users answer authorization requests' },
    });
    expect(await answer(member.token, { action_id: 'no-such-request', approved: true })).toMatchObject({
      status: 404,
      body: { error: 'authorization request not found' },
    });
    expect(await answer(member.token, { action_id: actionId, approved: 'yes' })).toMatchObject({ status: 400, body: { error: 'approved must be a boolean' } });
    expect((await t.api.post('/api/chat/auth/response', { action_id: actionId, approved: true })).status).toBe(401);

    // An admin may answer a request sent to someone else; the second answer is a conflict.
    expect((await answer(t.adminToken, { action_id: actionId, approved: false })).status).toBe(200);
    expect(await answer(member.token, { action_id: actionId, approved: true })).toMatchObject({
      status: 409,
      body: { error: 'authorization request already rejected' },
    });
    // Over the socket the same refusal is an ERROR frame.
    human.send({ type: 'AUTH_RESPONSE', payload: { action_id: actionId, approved: true }, local_id: 'again' });
    expect(await human.next('ERROR')).toMatchObject({ local_id: 'again', payload: { code: 'conflict', message: 'authorization request already rejected' } });

    const mine = await t.api.get('/api/chat/auth/requests', { token: member.token });
    expect(mine.body.map((r: { action_id: string; status: string }) => [r.action_id, r.status])).toEqual([[actionId, 'REJECTED']]);
    expect((await t.api.get('/api/chat/auth/requests', { token: other.token })).body).toEqual([]);
  });

  it('stores the note left with a decision and shows it only to those who may see the request', async () => {
    const member = await t.createMember();
    const other = await t.createMember();
    const worker = await t.createAgent();
    const human = await connect(member.token);
    await connect(worker.api_token);
    const answer = (token: string, body: unknown) => t.api.post('/api/chat/auth/response', body, { token });
    const viewOf = async (token: string, actionId: string) =>
      ((await t.api.get('/api/chat/auth/requests', { token })).body as Array<{ action_id: string; decision_note: string | null }>).find(
        (r) => r.action_id === actionId,
      );

    const { request } = await requestCommand(human, worker.username, 'purge the cache');
    const actionId = request.payload.action_id as string;
    expect(await viewOf(member.token, actionId)).toMatchObject({ status: 'PENDING', decision_note: null });
    // Bounded: a note past 2000 characters is the client's mistake, and the request stays pending.
    expect(await answer(member.token, { action_id: actionId, approved: false, note: 'x'.repeat(2001) })).toMatchObject({
      status: 400,
      body: { error: 'note must be at most 2000 characters' },
    });
    expect(await answer(member.token, { action_id: actionId, approved: false, note: 42 })).toMatchObject({ status: 400 });
    const decided = await answer(member.token, { action_id: actionId, approved: false, note: '  not during business hours  ' });
    // The answer keeps its older shape.
    expect(decided).toMatchObject({ status: 200, body: { status: 'processed', action_id: actionId } });
    expect(Object.keys(decided.body as object).sort()).toEqual(['action_id', 'result', 'status']);
    expect(await viewOf(member.token, actionId)).toMatchObject({ status: 'REJECTED', decided_by: member.id, decision_note: 'not during business hours' });
    expect(await viewOf(t.adminToken, actionId)).toMatchObject({ decision_note: 'not during business hours' });
    // Another member sees neither the request nor its note, and the status update carries no note.
    expect(await viewOf(other.token, actionId)).toBeUndefined();
    expect((await human.next('AUTH_STATUS_UPDATE')).payload).toEqual({ action_id: actionId, status: 'REJECTED' });

    // The older body (no note) and the socket's AUTH_RESPONSE with a note both still work; an empty note is no note.
    const second = await requestCommand(human, worker.username, 'flush the queue');
    const secondId = second.request.payload.action_id as string;
    expect((await answer(member.token, { action_id: secondId, approved: false, note: '   ' })).status).toBe(200);
    expect(await viewOf(member.token, secondId)).toMatchObject({ status: 'REJECTED', decision_note: null });
    const third = await requestCommand(human, worker.username, 'compact the log');
    const thirdId = third.request.payload.action_id as string;
    human.send({ type: 'AUTH_RESPONSE', payload: { action_id: thirdId, approved: false, note: 'from the socket' } });
    await human.nextWhere((f) => f.type === 'AUTH_STATUS_UPDATE' && (f.payload as { action_id: string }).action_id === thirdId, 'the update');
    expect(await viewOf(member.token, thirdId)).toMatchObject({ status: 'REJECTED', decision_note: 'from the socket' });
  });

  it('pages authorization requests created in the same instant without skipping or repeating one', async () => {
    const member = await t.createMember();
    const worker = await t.createAgent();
    const at = '2026-01-01T00:00:00.000Z';
    const rows = ['req-c', 'req-a', 'req-e', 'req-b', 'req-d'].map((action_id, i) => ({
      action_id,
      requester_id: member.id,
      conversation_id: null,
      approver_id: member.id,
      target_agent_id: worker.id,
      target_agent_name: worker.username,
      command: `command ${i}`,
      reason: 'paging',
      status: 'EXPIRED' as const,
      created_at: i === 4 ? '2025-12-31T23:59:59.000Z' : at,
      expires_at: at,
    }));
    await t.hub.store.db.insertInto('authorization_requests').values(rows).execute();

    const seen: string[] = [];
    let query = '';
    for (let page = 0; page < 5; page++) {
      const res = await t.api.get(`/api/chat/auth/requests?limit=2${query}`, { token: member.token });
      expect(res.status).toBe(200);
      const items = res.body as Array<{ action_id: string; created_at: string }>;
      seen.push(...items.map((r) => r.action_id));
      if (items.length < 2) break;
      const last = items[items.length - 1]!;
      query = `&before=${encodeURIComponent(last.created_at)}&before_action_id=${encodeURIComponent(last.action_id)}`;
    }
    // Newest first; within one instant by action_id.
    expect(seen).toEqual(['req-a', 'req-b', 'req-c', 'req-e', 'req-d']);
  });

  it('matches an answer without a stream_id to the oldest open request to that agent', async () => {
    const member = await t.createMember();
    const worker = await t.createAgent();
    const human = await connect(member.token);
    const agent = await connect(worker.api_token);
    const { request, echo } = await requestCommand(human, worker.username, 'count the files');
    await t.api.post('/api/chat/auth/response', { action_id: request.payload.action_id, approved: true }, { token: member.token });
    const directive = await nextDirective(agent);
    answerDirective(agent, directive, '1234 files', false);
    expect((await nextAnswer(human, { conversationId: echo.conversation_id })).text).toContain('1234 files');
  });

  it('relays agent → Butler → agent after an admin approves (agent-initiated commands need an admin by default)', async () => {
    const asking = await t.createAgent();
    const target = await t.createAgent();
    const a = await connect(asking.api_token);
    const b = await connect(target.api_token);
    const admin = await connect(t.adminToken);
    const member = await t.createMember();
    const bystander = await connect(member.token);

    a.send({ type: 'CHAT', target_id: BUTLER_ID, payload: `@${target.username} what is the disk usage?`, local_id: 'q1' });
    await a.next('ACK');
    const request = await admin.next('AUTH_REQUEST');
    expect(request.payload).toMatchObject({ target_agent_id: target.id, command: 'what is the disk usage?', status: 'PENDING' });
    expect((await nextAnswer(a)).text).toContain('I have asked an admin to approve');

    // Not the member's to answer; an admin approves.
    expect((await t.api.post('/api/chat/auth/response', { action_id: request.payload.action_id, approved: true }, { token: member.token })).status).toBe(403);
    admin.send({ type: 'AUTH_RESPONSE', payload: { action_id: request.payload.action_id, approved: true } });
    expect((await admin.next('AUTH_STATUS_UPDATE')).payload.status).toBe('APPROVED');

    const directive = await nextDirective(b);
    expect(directive.payload).toBe('[DIRECTIVE] what is the disk usage?');
    answerDirective(b, directive, 'disk 71% full');
    const answer = await nextAnswer(a);
    expect(answer.text).toBe(`${target.username} carried out \`what is the disk usage?\`:\n\ndisk 71% full`);
    expect(answer.final.conversation_id).toBeUndefined();
    expect(bystander.pending().filter((f) => f.type === 'AUTH_REQUEST' || f.type === 'BUTLER_AGENT_MESSAGE')).toEqual([]);
  });

  it("never takes an agent echoing Butler's own frames for a new request", async () => {
    const echoer = await t.createAgent();
    const a = await connect(echoer.api_token);
    a.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'agents', local_id: 'list' });
    await a.next('ACK');
    const answer = await nextAnswer(a);
    const before = t.hub.butler.actor.getSnapshot().context;
    const turns = before.turns;
    const claimed = before.claimed;
    // An echo agent sends every CHAT back to its sender, stream_id included.
    a.send({ type: 'CHAT', target_id: BUTLER_ID, payload: answer.text, stream_id: answer.streamId, local_id: 'echo' });
    await a.next('ACK');
    const after = t.hub.butler.actor.getSnapshot().context;
    expect(after.claimed).toBe(claimed + 1);
    expect(after.turns).toBe(turns);
  });

  it('says so when the agent is unknown or offline, and asks nothing', async () => {
    const member = await t.createMember();
    const sleeping = await t.createAgent();
    const human = await connect(member.token);
    await askButler(human, '@nobody-here do something');
    expect((await nextAnswer(human)).text).toBe('I do not know an agent called `nobody-here`. `agents` lists them.');
    await askButler(human, `@${sleeping.username} wake up`);
    expect((await nextAnswer(human)).text).toBe(`I did not send it: ${sleeping.username} is offline, so the command was not sent.`);
    expect(human.pending().filter((f) => f.type === 'AUTH_REQUEST')).toEqual([]);
  });
});

describeEachDriver('Butler authorization requests over time', (driver) => {
  it('expires an unanswered request and tells the asker; a late answer is a conflict', async () => {
    const t = await startTestHub(driver, { BUTLER_AUTH_TIMEOUT: '1s' });
    try {
      const member = await t.createMember();
      const worker = await t.createAgent();
      const human = await connectWs(t.url, member.token);
      const agent = await connectWs(t.url, worker.api_token);
      const echo = await askButler(human, `@${worker.username} prune old builds`);
      const request = await human.next('AUTH_REQUEST');
      await nextAnswer(human, { conversationId: echo.conversation_id });
      expect((await human.next('AUTH_STATUS_UPDATE', 5000)).payload).toEqual({ action_id: request.payload.action_id, status: 'EXPIRED' });
      expect((await nextAnswer(human, { conversationId: echo.conversation_id })).text).toBe(
        `The request to send \`prune old builds\` to ${worker.username} expired without an answer, so nothing was sent.`,
      );
      const late = await t.api.post('/api/chat/auth/response', { action_id: request.payload.action_id, approved: true }, { token: member.token });
      expect(late).toMatchObject({ status: 409, body: { error: 'authorization request already expired' } });
      await Promise.all([human.close(), agent.close()]);
    } finally {
      await t.stop();
    }
  });

  it('keeps a pending request across a restart: the approval afterwards still runs the command and answers the asker', async () => {
    let t = await startTestHub(driver);
    try {
      const member = await t.createMember();
      const worker = await t.createAgent();
      let human = await connectWs(t.url, member.token);
      let agent = await connectWs(t.url, worker.api_token);
      const echo = await askButler(human, `@${worker.username} flush the queue`);
      const request = await human.next('AUTH_REQUEST');
      await nextAnswer(human);
      await Promise.all([human.close(), agent.close()]);

      t = await t.restart();
      human = await connectWs(t.url, member.token, { since: echo.id! });
      agent = await connectWs(t.url, worker.api_token);
      // The resumed history still shows the request as pending, then Butler's stored answer.
      expect((await human.next('AUTH_REQUEST')).payload).toMatchObject({ action_id: request.payload.action_id, status: 'PENDING' });
      expect((await human.nextWhere((f) => f.type === 'CHAT' && f.sender_id === BUTLER_ID, 'the replayed answer')).payload).toContain(
        'I have asked you to approve',
      );

      const res = await t.api.post('/api/chat/auth/response', { action_id: request.payload.action_id, approved: true }, { token: member.token });
      expect(res.status).toBe(200);
      const directive = await nextDirective(agent);
      answerDirective(agent, directive, 'queue flushed');
      const result = await nextAnswer(human, { conversationId: echo.conversation_id });
      expect(result.text).toContain('queue flushed');
      await Promise.all([human.close(), agent.close()]);
    } finally {
      await t.stop();
    }
  });
});

describe('Butler in the actor system', () => {
  it('is registered as systemId "butler" beside the router, and bound in the address table as user 2', async () => {
    const t = await startTestHub('sqlite');
    try {
      expect(t.hub.router.system.get('butler')).toBe(t.hub.butler.actor);
      expect(t.hub.router.getSnapshot().context.table.countOf(BUTLER_ID)).toBe(1);
      const res = await t.api.get('/api/users/butler', { token: t.adminToken });
      expect(res.body).toMatchObject({ id: BUTLER_ID, status: 'ONLINE' });
    } finally {
      await t.stop();
    }
  });
});
