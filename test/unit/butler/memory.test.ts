// Butler's memory of its conversations: the store is read once per conversation, rows recorded as
// they go by answer later turns exactly as the store would, decisions show, and where memory was
// cut short the store is read again. The store here is a recording fake of the chat repo.
import { describe, expect, it } from 'vitest';
import { createHistory } from '../../../src/butler/history.js';
import { createConversationMemory, type SeenMessage } from '../../../src/butler/memory.js';
import type { Asker } from '../../../src/butler/tools.js';
import type { ChatPage, ChatRepo } from '../../../src/store/repositories/chat.js';
import type { MessageRow } from '../../../src/store/schema.js';

const BUTLER = 2;
const ADA = 10;
const THREAD = 7;
const ada: Asker = { principal: { id: ADA, username: 'ada', role: 'MEMBER' }, conversationId: THREAD };
const agent: Asker = { principal: { id: 30, username: 'bot', role: 'AGENT' }, conversationId: null };

/** The store: rows by id, and every read made of it. */
function fakeStore() {
  const rows: MessageRow[] = [];
  const reads: string[] = [];
  const page = (matching: MessageRow[], p: ChatPage) =>
    matching
      .filter((r) => p.beforeId === undefined || r.id < p.beforeId)
      .slice(-p.limit)
      .map((r) => ({ ...r }));
  const chat = {
    async inConversation(conversationId: number, types: readonly string[], p: ChatPage) {
      reads.push(`conversation ${conversationId}${p.beforeId ? ` before ${p.beforeId}` : ''}`);
      return page(
        rows.filter((r) => r.conversation_id === conversationId && types.includes(r.type)),
        p,
      );
    },
    async between(a: number, b: number, types: readonly string[], p: ChatPage) {
      reads.push(`between ${a} ${b}${p.beforeId ? ` before ${p.beforeId}` : ''}`);
      const pair = (r: MessageRow) => (r.sender_id === a && r.target_id === b) || (r.sender_id === b && r.target_id === a);
      return page(
        rows.filter((r) => pair(r) && types.includes(r.type)),
        p,
      );
    },
  } as unknown as ChatRepo;
  let nextId = 1;
  /** Stores a message and hands back what Butler would see go by. */
  const add = (m: Omit<SeenMessage, 'id'>): SeenMessage => {
    const id = nextId++;
    rows.push({
      id,
      type: m.type,
      sender_id: m.sender_id,
      sender_name: m.sender_name,
      sender_role: m.sender_id === BUTLER ? 'BUTLER' : 'MEMBER',
      target_id: m.target_id ?? null,
      target_role: null,
      payload: JSON.stringify(m.payload),
      level: null,
      content: '',
      local_id: null,
      conversation_id: m.conversation_id ?? null,
      stream_id: null,
      created_at: new Date(0).toISOString(),
    });
    return { ...m, id };
  };
  return { chat, rows, reads, add };
}

const fromAda = (text: string) => ({ type: 'CHAT', sender_id: ADA, sender_name: 'ada', target_id: BUTLER, conversation_id: THREAD, payload: text });
const toAda = (text: string) => ({ type: 'CHAT', sender_id: BUTLER, sender_name: 'Butler', target_id: ADA, conversation_id: THREAD, payload: text });

describe("Butler's conversation memory", () => {
  it('reads the store once, then answers every turn from what it recorded, as the store would', async () => {
    const store = fakeStore();
    const memory = createConversationMemory({ chat: store.chat, butlerId: BUTLER, rowsPerTurn: 4, maxChars: 1_000_000 });
    const remembered = createHistory({ chat: store.chat, butlerId: BUTLER, window: 2, memory });
    const fresh = createHistory({ chat: fakeStoreView(store), butlerId: BUTLER, window: 2 });
    store.add(fromAda('hello'));
    store.add(toAda('hi'));
    let ask = store.add(fromAda('one'));
    // The first turn reads the store.
    expect(await remembered.load(ada, ask.id)).toEqual(await fresh.load(ada, ask.id));
    expect(store.reads).toEqual([`conversation ${THREAD}`]);
    memory.record(ask);
    for (const text of ['two', 'three', 'four']) {
      memory.record(store.add(toAda(`re: ${ask.payload as string}`)));
      ask = store.add(fromAda(text));
      memory.record(ask);
      // A row of another conversation, and one not about history, change nothing.
      memory.record(store.add({ ...fromAda('elsewhere'), conversation_id: 99 }));
      memory.record(store.add({ ...toAda('…'), type: 'CHAT_STREAM' }));
      const fromMemory = await remembered.load(ada, ask.id);
      expect(fromMemory).toEqual(await fresh.load(ada, ask.id));
    }
    expect(store.reads).toEqual([`conversation ${THREAD}`]);
    const last = await remembered.load(ada, ask.id);
    expect(last.map((m) => m.content)).toEqual(['Summary of earlier turns of this conversation:\n- ada: two\n- Butler: re: two', 'three', 're: three']);
  });

  it('merges rows that go by while its first read is under way, and skips rows it has', async () => {
    const store = fakeStore();
    const memory = createConversationMemory({ chat: store.chat, butlerId: BUTLER, rowsPerTurn: 10, maxChars: 1_000_000 });
    const a = store.add(fromAda('a'));
    const b = store.add(fromAda('b'));
    const loading = memory.before(ada, b.id);
    // Recorded during the read: one the read also finds, one it does not.
    memory.record(a);
    const c = store.add(toAda('c'));
    memory.record(c);
    expect((await loading)!.map((r) => r.text)).toEqual(['a']);
    expect((await memory.before(ada, c.id + 1))!.map((r) => r.text)).toEqual(['a', 'b', 'c']);
  });

  it("keeps an agent's chats with Butler in both directions, and shows decisions in authorization rows", async () => {
    const store = fakeStore();
    const memory = createConversationMemory({ chat: store.chat, butlerId: BUTLER, rowsPerTurn: 10, maxChars: 1_000_000 });
    const history = createHistory({ chat: store.chat, butlerId: BUTLER, window: 10, memory });
    const first = store.add({ type: 'CHAT', sender_id: 30, sender_name: 'bot', target_id: BUTLER, payload: 'hi' });
    await history.load(agent, first.id);
    memory.record(first);
    memory.record(store.add({ type: 'CHAT', sender_id: BUTLER, sender_name: 'Butler', target_id: 30, payload: { structured: true } }));
    const request = store.add({
      type: 'AUTH_REQUEST',
      sender_id: BUTLER,
      sender_name: 'Butler',
      target_id: ADA,
      conversation_id: THREAD,
      payload: { action_id: 'act-1', command: 'reboot', target_agent_name: 'bot', status: 'PENDING' },
    });
    const ask = store.add({ type: 'CHAT', sender_id: 30, sender_name: 'bot', target_id: BUTLER, payload: 'and?' });
    memory.record(ask);
    expect((await history.load(agent, ask.id)).map((m) => m.content)).toEqual(['hi', '{"structured":true}']);

    await history.load(ada, request.id + 100);
    memory.record(request);
    memory.decided('act-1', 'APPROVED');
    expect(await history.load(ada, request.id + 100)).toEqual([{ role: 'assistant', content: '[authorization request to run "reboot" on bot: APPROVED]' }]);
  });

  it('reads the store again where it dropped rows to stay bounded, and forgets the least recent conversation past its budget', async () => {
    const store = fakeStore();
    const memory = createConversationMemory({ chat: store.chat, butlerId: BUTLER, rowsPerTurn: 2, maxChars: 1_000_000 });
    const history = createHistory({ chat: store.chat, butlerId: BUTLER, window: 1, memory });
    const first = store.add(fromAda('first'));
    await history.load(ada, first.id);
    memory.record(first);
    // More rows than a turn's and the slack behind a turn still waiting: the oldest go.
    const ids: number[] = [first.id];
    for (let i = 0; i < 60; i++) {
      const row = store.add(toAda(`r${i}`));
      memory.record(row);
      ids.push(row.id);
    }
    const fresh = createHistory({ chat: fakeStoreView(store), butlerId: BUTLER, window: 1 });
    store.reads.length = 0;
    // A turn early enough that its rows were dropped reads the store; a recent one does not.
    expect(await history.load(ada, ids[2]!)).toEqual(await fresh.load(ada, ids[2]!));
    expect(store.reads).toEqual([`conversation ${THREAD} before ${ids[2]}`]);
    store.reads.length = 0;
    await history.load(ada, ids.at(-1)! + 1);
    expect(store.reads).toEqual([]);

    const small = createConversationMemory({ chat: store.chat, butlerId: BUTLER, rowsPerTurn: 2, maxChars: 500 });
    await small.before(ada, 1_000);
    expect(small.conversations).toBe(1);
    await small.before(agent, 1_000);
    // Past the budget, the conversation used least recently is forgotten, never the one in use.
    expect(small.conversations).toBe(1);
    store.reads.length = 0;
    await small.before(agent, 1_000);
    expect(store.reads).toEqual([]);
    await small.before(ada, 1_000);
    expect(store.reads).toEqual([`conversation ${THREAD}`]);
  });
});

/** A second view of the same rows, for the history as the store alone gives it. */
function fakeStoreView(store: ReturnType<typeof fakeStore>): ChatRepo {
  return {
    inConversation: (id: number, types: readonly string[], p: ChatPage) => {
      const before = store.reads.length;
      return store.chat.inConversation(id, types, p).finally(() => store.reads.splice(before));
    },
    between: (a: number, b: number, types: readonly string[], p: ChatPage) => {
      const before = store.reads.length;
      return store.chat.between(a, b, types, p).finally(() => store.reads.splice(before));
    },
  } as unknown as ChatRepo;
}
