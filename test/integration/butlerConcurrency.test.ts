// BUTLER_MAX_CONCURRENCY on a real hub: with one slot, a conversation whose model call hangs holds
// it, other conversations' calls wait (their depth shown in /metrics and Butler's inspection), and
// each is let in as the slot frees, in the order they came, one call at a time at the model. Also:
// Butler's in-memory history follows a conversation turn after turn as the store has it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUTLER_ID, askButler, nextAnswer } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { lastUserText, startFakeModel, textReply, type FakeModel } from '../helpers/fakeModel.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { scrape, valueOf } from '../helpers/metrics.js';
import { connectWs } from '../helpers/wsClient.js';

describeEachDriver('Butler under BUTLER_MAX_CONCURRENCY', (driver) => {
  let fake: FakeModel;
  let t: TestHub;
  beforeAll(async () => {
    fake = await startFakeModel();
    t = await startTestHub(driver, {
      BUTLER_BASE_URL: fake.baseUrl,
      BUTLER_MODEL: 'fake-model',
      BUTLER_STREAM_IDLE_TIMEOUT: '30s',
      BUTLER_MAX_CONCURRENCY: '1',
    });
  });
  afterAll(async () => {
    await t.stop();
    await fake.close();
  });

  /** Butler's model-call figures, once `ready` holds for them (each check is one more inspection request). */
  async function modelCallsWhen(ready: (calls: { in_flight: number; queued: number; max: number }) => boolean) {
    for (let tries = 0; tries < 500; tries++) {
      const res = await t.api.get('/api/admin/actors/butler', { token: t.adminToken });
      const calls = res.body.context.model_calls as { in_flight: number; queued: number; max: number };
      if (ready(calls)) return calls;
    }
    throw new Error('Butler never reached the expected model-call figures');
  }

  it('lets one model call stream at a time and queues the others, visibly', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    const thread = async (title: string) => (await t.api.post('/api/chat/threads', { peer_id: BUTLER_ID, title }, { token: member.token })).body.id as number;
    const [first, second, third] = [await thread('one'), await thread('two'), await thread('three')];
    fake.requests.length = 0;
    fake.setDefault((request) =>
      lastUserText(request) === 'hold on' ? { steps: [{ content: 'holding' }, { hang: true }] } : textReply(`done: ${lastUserText(request)}`),
    );

    await askButler(ws, 'hold on', { conversation_id: first });
    await ws.nextWhere((f) => f.type === 'CHAT_STREAM' && f.conversation_id === first, 'the first chunk of the held answer');
    await askButler(ws, 'second', { conversation_id: second });
    await askButler(ws, 'third', { conversation_id: third });
    expect(await modelCallsWhen((c) => c.queued === 2)).toEqual({ in_flight: 1, queued: 2, max: 1 });
    const metrics = await scrape(t);
    expect(valueOf(metrics, 'hub_butler_model_queue_depth')).toBe(2);
    expect(valueOf(metrics, 'hub_butler_model_calls_in_flight')).toBe(1);
    expect(fake.requests).toHaveLength(1);

    // Cancelling the held answer frees its slot: the waiting calls go next, in turn.
    await askButler(ws, '/cancel', { conversation_id: first });
    expect((await nextAnswer(ws, { conversationId: second })).text).toBe('done: second');
    expect((await nextAnswer(ws, { conversationId: third })).text).toBe('done: third');
    expect(fake.requests.map(lastUserText)).toEqual(['hold on', 'second', 'third']);
    expect(await modelCallsWhen((c) => c.in_flight === 0)).toEqual({ in_flight: 0, queued: 0, max: 1 });
    await ws.close();
  });

  it('gives the model the same history, turn after turn, as the store holds', async () => {
    const member = await t.createMember();
    const ws = await connectWs(t.url, member.token);
    fake.requests.length = 0;
    fake.setDefault((request) => textReply(`ok: ${lastUserText(request)}`, 2));
    let conversation: number | undefined;
    for (const text of ['one', 'two', 'three']) {
      const echo = await askButler(ws, text, conversation === undefined ? {} : { conversation_id: conversation });
      conversation = echo.conversation_id as number;
      await nextAnswer(ws, { conversationId: conversation });
    }
    const history = await t.api.get(`/api/chat/history/${BUTLER_ID}?conversation_id=${conversation}`, { token: member.token });
    const stored = (history.body as Array<{ sender_id: number; payload: string }>).map((m) => ({
      role: m.sender_id === BUTLER_ID ? 'assistant' : 'user',
      content: m.payload,
    }));
    const last = fake.requests.at(-1)!;
    expect(last.messages.slice(1)).toEqual(stored.slice(0, -1));
    expect(stored.at(-1)).toEqual({ role: 'assistant', content: 'ok: three' });
    await ws.close();
  });
});
