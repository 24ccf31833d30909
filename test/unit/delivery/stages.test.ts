// The pipeline's stages on their own: the summary of a message, the thread rules, resolving one
// message, building a batch, committing in order and settling a committed batch.
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { Errors, HubError } from '../../../src/errors.js';
import { buildBatch, createTouchThrottle, needsWrite, type Batch } from '../../../src/delivery/batch.js';
import { createCommitOrder, type CommitOutcome } from '../../../src/delivery/commit.js';
import { presenceDeliveries, refuse, settle, toDelivery } from '../../../src/delivery/deliver.js';
import type { Item, MessageItem } from '../../../src/delivery/items.js';
import { createResolver, refusePosingAsButler, toMessage } from '../../../src/delivery/resolve.js';
import { summarise } from '../../../src/delivery/summary.js';
import { createThreadRouting, defaultThreadRequest, pairKey, threadPair } from '../../../src/delivery/threads.js';
import type { Message, MessageInput, Origin, Principal } from '../../../src/delivery/types.js';
import type { MessageFrame } from '../../../src/protocol/frames.js';
import { FakeStore, users } from '../../helpers/deliveryFakes.js';

const { alice, bob, weather, butler } = users;
const AT = '2026-01-01T00:00:00.000Z';
const silent = pino({ level: 'silent' });

const item = (sender: Principal, input: MessageInput, extra: Partial<MessageItem> = {}): MessageItem => ({
  kind: 'message',
  sender,
  input,
  store: input.type !== 'CHAT_STREAM' && input.type !== 'CHAT_STREAM_END',
  at: AT,
  bytes: 0,
  ...extra,
});

const directoryOf = (...known: Principal[]) => {
  const map = new Map(known.map((p) => [p.id, p]));
  return { peek: (id: number) => map.get(id), load: async () => undefined };
};

describe('summarise', () => {
  it.each([
    ['SYSTEM_LOG', { level: 'ERROR', content: 'disk full' }, { level: 'ERROR', content: 'disk full' }],
    ['SYSTEM_LOG', { level: 'LOUD', content: 'x' }, { level: 'INFO', content: 'x' }],
    ['WEATHER_UPDATE', { location: 'Paris' }, { level: 'INFO', content: '{"location":"Paris"}' }],
    ['CHAT', 'hello', { level: null, content: 'hello' }],
    ['CHAT', 'nul\u0000byte', { level: null, content: 'nul\uFFFDbyte' }],
  ])('%s %j → %j', (type, payload, expected) => {
    expect(summarise(type, payload)).toEqual(expected);
  });

  it('cuts a JSON summary at 4096 characters', () => {
    expect(summarise('CODE_REVIEW', { verdict: 'x'.repeat(5000) }).content).toHaveLength(4096);
  });
});

describe('threads', () => {
  it('pairs a human with a machine, whichever sends', () => {
    expect(threadPair(alice, weather)).toEqual({ human: alice, machine: weather });
    expect(threadPair(weather, alice)).toEqual({ human: alice, machine: weather });
    expect(threadPair(butler, alice)).toEqual({ human: alice, machine: butler });
    expect(threadPair(alice, bob)).toBeUndefined();
    expect(threadPair(weather, butler)).toBeUndefined();
    expect(pairKey({ human: alice, machine: weather })).toBe('1:10');
  });

  it('titles default threads as the older hub did', () => {
    expect(defaultThreadRequest({ human: alice, machine: weather }, AT)).toEqual({
      ownerId: 1,
      peerId: 10,
      kind: 'agent_direct',
      title: 'weather chat',
      at: AT,
    });
    expect(defaultThreadRequest({ human: alice, machine: butler }, AT)).toMatchObject({ kind: 'butler_direct', title: 'Butler' });
  });

  it('makes the default threads a batch needs in one call, and none it has seen', async () => {
    const store = new FakeStore();
    const routing = createThreadRouting({
      store,
      threads: { findById: async (id) => store.threads.get(id) },
      chat: { latestConversation: async () => undefined },
      directory: directoryOf(alice, bob, weather, butler),
    });
    const items: Item[] = [
      item(alice, { type: 'CHAT', payload: 'a', target_id: weather.id }),
      item(bob, { type: 'CHAT', payload: 'b', target_id: butler.id }),
      item(alice, { type: 'CHAT', payload: 'c', target_id: weather.id }),
      item(alice, { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'not threaded' }, target_id: weather.id }),
    ];
    await routing.prepare(items);
    expect(store.threadRequests).toHaveLength(1);
    expect(store.threadRequests[0]!.map((r) => [r.ownerId, r.peerId])).toEqual([
      [alice.id, weather.id],
      [bob.id, butler.id],
    ]);
    await routing.prepare(items);
    // Resolving uses what was made: no further call to the writer.
    const [aliceWithWeather] = store.threads.keys();
    expect(await routing.conversationOf(items[0] as MessageItem, weather)).toBe(aliceWithWeather);
    expect(store.threadRequests).toHaveLength(1);
  });

  it("refuses a conversation that is not the pair's", async () => {
    const store = new FakeStore();
    const other = store.addThread(bob.id, weather.id);
    const routing = createThreadRouting({
      store,
      threads: { findById: async (id) => store.threads.get(id) },
      chat: { latestConversation: async () => undefined },
      directory: directoryOf(),
    });
    await expect(routing.conversationOf(item(alice, { type: 'CHAT', payload: 'x', target_id: weather.id, conversation_id: other }), weather)).rejects.toThrow(
      `conversation ${other} is not a conversation between the sender and the target`,
    );
  });

  it('forgets the oldest open stream past its bound', async () => {
    const store = new FakeStore();
    const first = store.addThread(alice.id, weather.id);
    const second = store.addThread(alice.id, weather.id);
    const routing = createThreadRouting({
      store,
      threads: { findById: async (id) => store.threads.get(id) },
      chat: { latestConversation: async () => undefined },
      directory: directoryOf(),
      maxOpenStreams: 1,
    });
    const chunk = (stream_id: string) => item(weather, { type: 'CHAT_STREAM', payload: '.', target_id: alice.id, stream_id });
    await routing.conversationOf(item(alice, { type: 'CHAT', payload: 'q', target_id: weather.id, conversation_id: first }), weather);
    await routing.conversationOf(chunk('old'), alice);
    await routing.conversationOf(chunk('new'), alice);
    await routing.conversationOf(item(alice, { type: 'CHAT', payload: 'q', target_id: weather.id, conversation_id: second }), weather);
    expect(await routing.conversationOf(chunk('new'), alice)).toBe(first);
    // The older stream was forgotten: it follows the human's latest thread now.
    expect(await routing.conversationOf(chunk('old'), alice)).toBe(second);
  });
});

describe('resolve', () => {
  it('lets only Butler look like Butler', () => {
    const directive = { type: 'CHAT', payload: '\n[directive] go' };
    expect(() => refusePosingAsButler({ sender: butler, input: directive }, weather)).not.toThrow();
    expect(() => refusePosingAsButler({ sender: butler, input: { ...directive, recordOnly: true } }, weather)).toThrow(/only Butler sends directives/);
    expect(() => refusePosingAsButler({ sender: alice, input: directive }, weather)).toThrow(/only Butler sends directives/);
    // Telemetry is not a command, whatever its text.
    expect(() => refusePosingAsButler({ sender: weather, input: { type: 'SYSTEM_LOG', payload: '[DIRECTIVE]' } }, undefined)).not.toThrow();
    expect(() => refusePosingAsButler({ sender: weather, input: { type: 'CHAT', payload: 'x', stream_id: 'butler-9' } }, butler)).not.toThrow();
    expect(() => refusePosingAsButler({ sender: weather, input: { type: 'CHAT', payload: 'x', stream_id: 'butler-9' } }, alice)).toThrow(
      /belong to Butler's requests/,
    );
  });

  it('turns an item into the columns it is stored with', () => {
    expect(toMessage(item(weather, { type: 'SYSTEM_LOG', payload: { level: 'WARNING', content: 'hot' }, local_id: 'l' }), undefined, null)).toEqual({
      type: 'SYSTEM_LOG',
      sender_id: weather.id,
      sender_name: 'weather',
      sender_role: 'AGENT',
      target_id: null,
      target_role: null,
      payload: { level: 'WARNING', content: 'hot' },
      level: 'WARNING',
      content: 'hot',
      local_id: 'l',
      conversation_id: null,
      stream_id: null,
      created_at: AT,
    });
  });

  it('loads an unknown target once and refuses one that does not exist', async () => {
    const loads: number[][] = [];
    const known = new Map<number, Principal>();
    const resolve = createResolver({
      directory: {
        peek: (id) => known.get(id),
        load: async (ids) => {
          loads.push([...ids]);
          for (const id of ids) if (id === alice.id) known.set(id, alice);
        },
      },
      threads: { conversationOf: async () => null },
    });
    expect(await resolve(item(weather, { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'x' }, target_id: alice.id }))).toMatchObject({
      target_id: alice.id,
      target_role: 'MEMBER',
    });
    await expect(resolve(item(weather, { type: 'SYSTEM_LOG', payload: {}, target_id: 77 }))).rejects.toMatchObject({
      kind: 'not_found',
      message: 'target user 77 not found',
    });
    expect(loads).toEqual([[alice.id], [77]]);
  });
});

describe('batch', () => {
  const message = (i: MessageItem): Message => toMessage(i, undefined, i.input.conversation_id ?? null);
  const build = (items: Item[], resolve = async (i: MessageItem) => message(i), touches = createTouchThrottle()) =>
    buildBatch(items, { resolve, touches, logger: silent });

  it('touches a thread once a second', () => {
    const touches = createTouchThrottle();
    expect(touches.due(1, '2026-01-01T00:00:00.000Z')).toBe(true);
    expect(touches.due(1, '2026-01-01T00:00:00.999Z')).toBe(false);
    expect(touches.due(2, '2026-01-01T00:00:00.999Z')).toBe(true);
    expect(touches.due(1, '2026-01-01T00:00:01.000Z')).toBe(true);
    touches.clear();
    expect(touches.due(1, '2026-01-01T00:00:01.001Z')).toBe(true);
  });

  it('folds repeats of a local_id into the first row and relays unstored frames without a row', async () => {
    const batch = await build([
      item(weather, { type: 'CHAT', payload: 'a', local_id: 'x' }),
      item(weather, { type: 'CHAT', payload: 'a', local_id: 'x' }),
      item(alice, { type: 'CHAT', payload: 'a', local_id: 'x' }),
      item(weather, { type: 'CHAT_STREAM', payload: 'chunk', local_id: 'x' }),
    ]);
    expect(batch.write.messages.map((m) => [m.sender_id, m.payload])).toEqual([
      [weather.id, '"a"'],
      [alice.id, '"a"'],
    ]);
    expect(batch.ready.map((r) => r.row)).toEqual([0, -1, 1, -1]);
    expect(batch.ready[1]!.sameAs).toBe(batch.ready[0]);
    expect(batch.ready[3]!.sameAs).toBeUndefined();
  });

  it("merges presence per user in first-seen order, an agent's report included", async () => {
    const batch = await build([
      { kind: 'presence', userId: alice.id, patch: { status: 'ONLINE', online: 1 }, at: AT },
      item(weather, { type: 'SECURITY_ALERT', payload: { severity: 'high', content: 'port scan' } }),
      { kind: 'presence', userId: alice.id, patch: { status: 'AWAY' }, at: '2026-01-01T00:00:02.000Z' },
      item(alice, { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'humans have no report' } }),
    ]);
    expect(batch.write.presence).toEqual([
      { userId: alice.id, patch: { status: 'AWAY', online: 1 }, at: '2026-01-01T00:00:02.000Z' },
      { userId: weather.id, patch: { last_report: expect.stringContaining('port scan'), last_seen_at: AT }, at: AT },
    ]);
    expect(batch.size).toBe(4);
  });

  it('sets refusals aside with their reason; an unexpected failure becomes unavailable', async () => {
    const batch = await build([item(alice, { type: 'CHAT', payload: 'a' }), item(bob, { type: 'CHAT', payload: 'b' })], async (i) => {
      if (i.sender.id === alice.id) throw Errors.forbidden('no');
      throw new Error('boom');
    });
    expect(batch.rejected.map(([i, e]) => [i.sender.id, e.kind])).toEqual([
      [alice.id, 'forbidden'],
      [bob.id, 'unavailable'],
    ]);
    expect(needsWrite(batch.write)).toBe(false);
  });

  it('touches the threads of stored messages, not of relays', async () => {
    const batch = await build([
      item(alice, { type: 'CHAT', payload: 'a', conversation_id: 5 }),
      item(weather, { type: 'CHAT_STREAM', payload: 'b', conversation_id: 6 }),
    ]);
    expect(batch.write.threads).toEqual([{ id: 5, at: AT }]);
    expect(needsWrite(batch.write)).toBe(true);
  });
});

describe('commit order', () => {
  const job = (store: FakeStore, log: string[], name: string, needsWrite = true) => ({
    write: { messages: [], presence: [], threads: [] },
    size: 1,
    needsWrite,
    complete: (outcome: CommitOutcome) => void log.push(`${name}:${'err' in outcome ? 'failed' : 'ok'}`),
  });

  it('completes in posting order and keeps at most writeDepth batches in flight', async () => {
    const store = new FakeStore(2);
    store.hold = true;
    const failures: number[] = [];
    const commits = createCommitOrder({ store, meter: { committed: () => undefined, failed: () => failures.push(1) }, logger: silent });
    const log: string[] = [];
    await commits.commit(job(store, log, 'a'));
    store.failNext = new Error('refused');
    let secondReturned = false;
    const second = commits.commit(job(store, log, 'b')).then(() => (secondReturned = true));
    await store.writesPosted(2);
    store.pending[1]!.settle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual([]);
    // Two batches in flight: the second caller waits for the first to complete.
    expect(secondReturned).toBe(false);
    store.pending[0]!.settle();
    await second;
    await commits.last;
    expect(log).toEqual(['a:ok', 'b:failed']);
    expect(failures).toHaveLength(1);
  });

  it('does not write a batch with nothing to store, yet completes it in its turn', async () => {
    const store = new FakeStore(1);
    const commits = createCommitOrder({ store, meter: { committed: () => undefined, failed: () => undefined }, logger: silent });
    const log: string[] = [];
    await commits.commit(job(store, log, 'relays', false));
    await commits.last;
    expect(store.writes).toHaveLength(0);
    expect(log).toEqual(['relays:ok']);
  });
});

describe('deliver', () => {
  const origin = (): Origin & { got: unknown[] } => {
    const got: unknown[] = [];
    return { got, accepted: (a) => got.push(a), rejected: (e) => got.push(e) };
  };

  async function batchOf(items: MessageItem[]): Promise<Batch> {
    return buildBatch(items, {
      resolve: async (i) => toMessage(i, i.input.target_id === butler.id ? butler : i.input.target_id === weather.id ? weather : undefined, null),
      touches: createTouchThrottle(),
      logger: silent,
    });
  }

  it('gives each message its stored id, serialises its frame once and skips repeats', async () => {
    const [a, b] = [origin(), origin()];
    const batch = await batchOf([
      item(weather, { type: 'CHAT', payload: 'hi', local_id: 'x' }, { origin: a }),
      item(weather, { type: 'CHAT', payload: 'hi', local_id: 'x' }, { origin: b }),
    ]);
    const { deliveries, answers } = settle(batch, { messages: [{ id: 7, created_at: 'then', conversation_id: 3, duplicate: false }], presence: [] }, AT);
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ type: 'CHAT', id: 7, senderId: weather.id });
    expect(deliveries[0]!.text).toBe(JSON.stringify(deliveries[0]!.frame));
    expect(answers).toHaveLength(2);
    const repeat = answers[1]!;
    expect('accepted' in repeat && repeat.accepted.stored).toEqual({ id: 7, created_at: 'then', conversation_id: 3, duplicate: true });
    expect('accepted' in repeat && repeat.accepted.frame).toMatchObject({ id: 7, timestamp: 'then', conversation_id: 3 });
  });

  it("marks records for sockets only and adds the admins' copy of Butler↔agent chat", async () => {
    const batch = await batchOf([item(weather, { type: 'CHAT', payload: 'done', target_id: butler.id, recordOnly: true })]);
    const [delivery] = settle(batch, { messages: [{ id: 9, created_at: AT, conversation_id: null, duplicate: false }], presence: [] }, AT).deliveries;
    expect(delivery).toMatchObject({ socketsOnly: true, audience: { target: butler.id, monitor: true } });
    expect(JSON.parse(delivery!.monitorText!)).toMatchObject({ type: 'BUTLER_AGENT_MESSAGE', id: 9, payload: { agent_id: weather.id } });
    const frame: MessageFrame = { type: 'CHAT', sender_id: 1, sender_name: 'a', sender_role: 'MEMBER', payload: 'x', timestamp: AT };
    const plain = toDelivery(
      { ...toMessage(item(alice, { type: 'CHAT', payload: 'x' }), undefined, null) },
      { echo: false, exceptSender: false, monitor: false, broadcast: 'everyone' },
      frame,
      'x',
    );
    expect(plain).not.toHaveProperty('socketsOnly');
    expect(plain).not.toHaveProperty('monitorText');
    expect(plain).not.toHaveProperty('id');
  });

  it('announces the presence of agents only, without a frame object', () => {
    const row = (id: number, role: string) => ({ id, username: `u${id}`, role, status: 'ONLINE', online: 1, last_seen_at: AT, last_report: null });
    const deliveries = presenceDeliveries([row(1, 'MEMBER'), row(10, 'AGENT'), row(20, 'BUTLER')], AT);
    expect(deliveries.map((d) => d.senderId)).toEqual([10]);
    expect(deliveries[0]!.frame).toBeUndefined();
  });

  it('refuses the stored messages of a failed commit and still relays the rest', async () => {
    const [stored, relay, refused] = [origin(), origin(), origin()];
    const batch = await batchOf([
      item(alice, { type: 'CHAT', payload: 'lost', target_id: weather.id }, { origin: stored }),
      item(weather, { type: 'CHAT_STREAM', payload: 'chunk' }, { origin: relay }),
    ]);
    batch.rejected.push([item(bob, { type: 'CHAT', payload: 'x' }, { origin: refused }), Errors.forbidden('no')]);
    const { rejected, relays, relayed } = refuse(batch);
    expect(rejected.map((a) => 'rejected' in a && [a.origin, a.rejected.kind])).toEqual([
      [stored, 'unavailable'],
      [refused, 'forbidden'],
    ]);
    expect(relays.map((d) => d.type)).toEqual(['CHAT_STREAM']);
    expect(relayed.map((a) => a.origin)).toEqual([relay]);
    expect(rejected[0]).toMatchObject({ rejected: expect.any(HubError) });
  });
});
