// The hub's timers on simulated time (the test kit's clock: HubOptions.timers on
// src/testing/simulatedTimers.ts): a test moves time and the hub acts as if it had passed, with no real waiting. An approval expires (its
// stored state, its timestamps in simulated time, the frames the human gets), a conversation goes
// idle and ends, a socket's session ends, retention prunes telemetry that is old in simulated time.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitFor } from 'xstate';
import { IDLE_MS } from '../../src/butler/actor.js';
import { BUTLER_ID, askButler, nextAnswer } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { wsClientPool } from '../helpers/wsClient.js';

const MINUTE = 60_000;
/** BUTLER_AUTH_TIMEOUT's default. */
const APPROVAL_TTL = 10 * MINUTE;

/** Each test moves through minutes or an hour of hub time; in real time it must finish within this. */
const REAL_TIME_LIMIT_MS = 20_000;

describeEachDriver('hub timers on simulated time', (driver) => {
  let t: TestHub | undefined;
  let timers: TestHub['clock'];
  const clients = wsClientPool(() => t!.url);
  afterEach(async () => {
    await clients.closeAll();
    await t?.stop();
    t = undefined;
  });

  const start = async (env: Record<string, string> = {}) => {
    t = await startTestHub(driver, env, { clock: 'simulated' });
    timers = t.clock;
    return t;
  };

  it(
    'expires an unanswered approval when time is moved past its TTL: stored as EXPIRED at that time, the human told',
    async () => {
      const t = await start();
      const startedAt = timers.now();
      const member = await t.createMember();
      const worker = await t.createAgent();
      const human = await clients.connect(member.token);
      await clients.connect(worker.api_token);
      const echo = await askButler(human, `@${worker.username} prune old builds`);
      const request = await human.next('AUTH_REQUEST');
      await nextAnswer(human, { conversationId: echo.conversation_id });
      const actionId = request.payload.action_id as string;
      const view = async () =>
        ((await t.api.get('/api/chat/auth/requests', { token: member.token })).body as Array<Record<string, unknown>>).find((r) => r.action_id === actionId);
      // Stored in simulated time: created now, expiring one TTL later.
      expect(await view()).toMatchObject({
        status: 'PENDING',
        created_at: new Date(startedAt).toISOString(),
        expires_at: new Date(startedAt + APPROVAL_TTL).toISOString(),
      });

      // A millisecond short of the TTL it still waits (the expiry timer has not run: nothing left to settle).
      await timers.advance(APPROVAL_TTL - 1);
      expect(await view()).toMatchObject({ status: 'PENDING', decided_at: null });
      expect(human.pending().filter((f) => f.type === 'AUTH_STATUS_UPDATE')).toEqual([]);

      await timers.advance(1);
      expect((await human.next('AUTH_STATUS_UPDATE')).payload).toEqual({ action_id: actionId, status: 'EXPIRED' });
      expect((await nextAnswer(human, { conversationId: echo.conversation_id })).text).toBe(
        `The request to send \`prune old builds\` to ${worker.username} expired without an answer, so nothing was sent.`,
      );
      expect(await view()).toMatchObject({ status: 'EXPIRED', decided_by: null, decided_at: new Date(startedAt + APPROVAL_TTL).toISOString() });
      // The stored AUTH_REQUEST the human replays shows the outcome too.
      const stored = await t.hub.store.db.selectFrom('messages').select('payload').where('type', '=', 'AUTH_REQUEST').execute();
      expect(stored.map((r) => JSON.parse(r.payload) as Record<string, unknown>)).toEqual([
        expect.objectContaining({ action_id: actionId, status: 'EXPIRED' }),
      ]);
      const late = await t.api.post('/api/chat/auth/response', { action_id: actionId, approved: true }, { token: member.token });
      expect(late).toMatchObject({ status: 409, body: { error: 'authorization request already expired' } });
    },
    // Ten minutes of hub time in a few seconds of real time.
    REAL_TIME_LIMIT_MS,
  );
});

describe('hub timers on simulated time (SQLite)', () => {
  let t: TestHub | undefined;
  let timers: TestHub['clock'];
  const clients = wsClientPool(() => t!.url);
  afterEach(async () => {
    await clients.closeAll();
    await t?.stop();
    t = undefined;
  });

  it('ends a conversation that stayed idle for IDLE_MS, and no sooner', { timeout: REAL_TIME_LIMIT_MS }, async () => {
    t = await startTestHub('sqlite', {}, { clock: 'simulated' });
    timers = t.clock;
    const member = await t.createMember();
    const human = await clients.connect(member.token);
    const echo = await askButler(human, 'hello there');
    await nextAnswer(human, { conversationId: echo.conversation_id });
    const conversations = t.hub.butler.actor.getSnapshot().context.conversations;
    const [key, conversation] = [...conversations].find(([, actor]) => actor.getSnapshot().context.asker.principal.id === member.id)!;
    await waitFor(conversation, (s) => s.matches('idle'));
    const actorId = `conversation-${member.id}-${echo.conversation_id}`;
    const shown = () => t!.api.get(`/api/admin/actors/${actorId}`, { token: t!.adminToken });
    expect((await shown()).body).toMatchObject({ kind: 'conversation', state: 'idle' });

    await timers.advance(IDLE_MS - 1);
    expect(conversation.getSnapshot().status).toBe('active');
    expect(t.hub.butler.actor.getSnapshot().context.conversations.get(key)).toBe(conversation);

    await timers.advance(1);
    await waitFor(conversation, (s) => s.status === 'done');
    await vi.waitFor(() => expect(t!.hub.butler.actor.getSnapshot().context.conversations.has(key)).toBe(false));
    expect((await shown()).status).toBe(404);
    // The next message starts a new conversation, answered as usual.
    const again = await askButler(human, 'still there?');
    expect((await nextAnswer(human, { conversationId: again.conversation_id })).final.sender_id).toBe(BUTLER_ID);
  });

  it("closes a human's socket with 4002 when time is moved past its session's end, and no sooner", { timeout: REAL_TIME_LIMIT_MS }, async () => {
    t = await startTestHub('sqlite', { JWT_TOKEN_EXPIRATION: '2h' }, { clock: 'simulated' });
    timers = t.clock;
    const member = await t.createMember();
    const human = await clients.connect(member.token);
    let closed: { code: number; reason: string } | undefined;
    void human.closed(REAL_TIME_LIMIT_MS).then((c) => (closed = c));
    await timers.advance(2 * 60 * MINUTE - 60_000);
    // Still served: a frame round trip after the advance.
    const echo = await askButler(human, 'still here');
    expect(echo.id).toBeDefined();
    expect(closed).toBeUndefined();
    await timers.advance(60_000);
    expect(await human.closed()).toEqual({ code: 4002, reason: 'session expired; log in again' });
  });

  it('prunes telemetry older than MESSAGE_RETENTION in simulated time, keeps younger telemetry and chat', { timeout: REAL_TIME_LIMIT_MS }, async () => {
    t = await startTestHub('sqlite', { MESSAGE_RETENTION: '1h' }, { clock: 'simulated' });
    timers = t.clock;
    const agent = await t.createAgent();
    const member = await t.createMember();
    const report = async (content: string) => {
      const res = await t!.api.post('/api/messages', { level: 'INFO', content }, { token: agent.api_token });
      expect(res.status).toBe(201);
    };
    await report('old report');
    const human = await clients.connect(member.token);
    const echo = await askButler(human, 'kept forever');
    await nextAnswer(human, { conversationId: echo.conversation_id });
    await timers.advance(30 * MINUTE);
    await report('young report');
    const contents = async () => await t!.hub.store.db.selectFrom('messages').select(['type', 'content']).orderBy('id').execute();

    // Sweeps run 5 s after start and every minute after: the one an hour and 5 s in cuts at 5 s in.
    await timers.advance(30 * MINUTE + 5_000);
    await vi.waitFor(async () => expect((await contents()).map((r) => r.content)).not.toContain('old report'), { interval: 20 });
    const left = await contents();
    expect(left.filter((r) => r.type === 'SYSTEM_LOG').map((r) => r.content)).toEqual(['young report']);
    // The question and Butler's answer.
    expect(left.filter((r) => r.type === 'CHAT')).toHaveLength(2);
  });
});
