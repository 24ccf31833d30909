// The dashboard's chat reducer: sends that go pending → confirmed (by the echo, the ACK or the send's
// receipt, in any order) or failed with the hub's reason and a retry; streams that grow chunk by
// chunk until the stored final CHAT replaces them; frames placed by conversation_id, with unread
// marks for conversations not on screen; history pages merged without duplicates; authorization
// cards that follow AUTH_STATUS_UPDATE.
import { describe, expect, it } from 'vitest';
import type { ChatMessageView } from '../../../src/protocol/objects.js';
import type { ServerFrame } from '../../../src/protocol/serverFrames.js';
import {
  chatReducer,
  conversationOf,
  firstMessageKey,
  initialChatState,
  parseAuthCard,
  unreadByPeer,
  type ChatEvent,
  type ChatState,
} from '../../../web/src/state/chat.js';

const ME = 7;
const BUTLER = 2;
const AGENT = 12;
const T = '2026-01-01T10:00:00.000Z';
const me = { id: ME, name: 'ada', role: 'MEMBER' };

const run = (events: ChatEvent[], state: ChatState = initialChatState(ME)) => events.reduce(chatReducer, state);
const frame = (f: Partial<ServerFrame> & { type: ServerFrame['type'] }): ChatEvent => ({ type: 'frame', frame: { timestamp: T, ...f } as ServerFrame });
const fromButler = { sender_id: BUTLER, sender_name: 'Butler', sender_role: 'BUTLER', target_id: ME };
const fromMe = { sender_id: ME, sender_name: 'ada', sender_role: 'MEMBER', target_id: BUTLER };
const send = (localId: string, text = 'hello', conversationId = 1, peerId = BUTLER): ChatEvent => ({
  type: 'send',
  localId,
  conversationId,
  peerId,
  text,
  sender: me,
  timestamp: T,
});
const items = (state: ChatState, conversation = 1) => conversationOf(state, conversation).items;

function row(id: number, extra: Partial<ChatMessageView> = {}): ChatMessageView {
  return {
    id,
    local_id: null,
    conversation_id: 1,
    sender_id: BUTLER,
    sender_name: 'Butler',
    sender_role: 'BUTLER',
    receiver_id: ME,
    target_id: ME,
    type: 'CHAT',
    payload: `message ${id}`,
    timestamp: T,
    ...extra,
  };
}

describe('chat reducer: own messages', () => {
  it('shows a send at once as pending, and confirms it with the echo (same local_id, now with an id)', () => {
    let state = run([send('l1')]);
    expect(items(state)).toMatchObject([{ key: 'l:l1', status: 'pending', text: 'hello', sender_id: ME }]);
    state = run([frame({ type: 'CHAT', ...fromMe, id: 40, local_id: 'l1', conversation_id: 1, payload: 'hello' })], state);
    expect(items(state)).toEqual([expect.objectContaining({ key: 'l:l1', id: 40, status: 'confirmed' })]);
    // Our own message never counts as unread.
    expect(state.unread.size).toBe(0);
  });

  it('confirms by ACK or by the receipt too, and the echo after that changes nothing', () => {
    let state = run([send('a'), frame({ type: 'ACK', local_id: 'a', id: 41 } as never), send('b'), { type: 'confirmed', localId: 'b', id: 42, timestamp: T }]);
    expect(items(state).map((i) => [i.id, i.status])).toEqual([
      [41, 'confirmed'],
      [42, 'confirmed'],
    ]);
    const echoes = [
      frame({ type: 'CHAT', ...fromMe, id: 41, local_id: 'a', conversation_id: 1, payload: 'hello' }),
      { type: 'confirmed', localId: 'a', id: 41, timestamp: T } as ChatEvent,
    ];
    state = run(echoes, state);
    expect(items(state)).toHaveLength(2);
    expect(items(state)[0]!.key).toBe('l:a');
  });

  it('marks a refused send failed with the reason; retry sends it again under a new local_id; discard removes it', () => {
    let state = run([
      send('x', 'first'),
      send('y', 'second'),
      frame({ type: 'ERROR', local_id: 'x', payload: { code: 'forbidden', message: 'not your conversation' } } as never),
      { type: 'failed', localId: 'y', error: 'too large' },
    ]);
    expect(items(state).map((i) => [i.status, i.error])).toEqual([
      ['failed', 'not your conversation'],
      ['failed', 'too large'],
    ]);
    state = run(
      [
        { type: 'retry', localId: 'x', newLocalId: 'x2', timestamp: T },
        { type: 'discard', localId: 'y' },
      ],
      state,
    );
    expect(items(state)).toEqual([expect.objectContaining({ key: 'l:x', local_id: 'x2', status: 'pending', error: undefined })]);
    state = run([frame({ type: 'CHAT', ...fromMe, id: 50, local_id: 'x2', conversation_id: 1, payload: 'first' })], state);
    expect(items(state)).toEqual([expect.objectContaining({ key: 'l:x', id: 50, status: 'confirmed' })]);
  });

  it('moves a first message (sent before any thread) into the thread the hub filed it in, whichever confirmation comes first', () => {
    const first = firstMessageKey(BUTLER);
    let state = run([send('f1', 'hello', first)]);
    expect(items(state, first)).toMatchObject([{ status: 'pending', text: 'hello' }]);
    state = run([frame({ type: 'CHAT', ...fromMe, id: 60, local_id: 'f1', conversation_id: 9, payload: 'hello' })], state);
    expect(items(state, first)).toEqual([]);
    expect(items(state, 9)).toEqual([expect.objectContaining({ key: 'l:f1', id: 60, status: 'confirmed', conversation_id: 9 })]);
    expect(state.peers.get(9)).toBe(BUTLER);

    state = run(
      [
        send('f2', 'again', first),
        { type: 'confirmed', localId: 'f2', id: 61, timestamp: T },
        frame({ type: 'CHAT', ...fromMe, id: 61, local_id: 'f2', conversation_id: 9, payload: 'again' }),
      ],
      state,
    );
    expect(items(state, first)).toEqual([]);
    expect(items(state, 9).map((i) => [i.key, i.id])).toEqual([
      ['l:f1', 60],
      ['l:f2', 61],
    ]);
  });

  it('keeps waiting when the hub could not store a send yet (`unavailable`: the client sends it again)', () => {
    const state = run([send('u'), frame({ type: 'ERROR', local_id: 'u', payload: { code: 'unavailable', message: 'store busy' } } as never)]);
    expect(items(state)[0]!.status).toBe('pending');
  });

  it('places a confirmed send by its id, before what is still pending or streaming', () => {
    const state = run([
      frame({ type: 'CHAT', ...fromButler, id: 10, conversation_id: 1, payload: 'hi' }),
      send('p1'),
      frame({ type: 'CHAT_STREAM', ...fromButler, conversation_id: 1, stream_id: 's', payload: 'typing' }),
      send('p2'),
      frame({ type: 'CHAT', ...fromMe, id: 11, local_id: 'p2', conversation_id: 1, payload: 'hello' }),
    ]);
    expect(items(state).map((i) => i.key)).toEqual(['m:10', 'l:p2', 'l:p1', 's:2:s']);
  });
});

describe('chat reducer: streams', () => {
  const chunk = (payload: string, streamId = 's1', conversation_id = 1) =>
    frame({ type: 'CHAT_STREAM', ...fromButler, conversation_id, stream_id: streamId, payload });

  it('grows a streamed reply chunk by chunk, then replaces it with the stored final text', () => {
    let state = run([chunk('Hello '), chunk('from ')]);
    expect(items(state)).toEqual([expect.objectContaining({ key: 's:2:s1', status: 'streaming', text: 'Hello from ' })]);
    state = run([chunk('Butler.')], state);
    expect(items(state)[0]!.text).toBe('Hello from Butler.');
    state = run([frame({ type: 'CHAT', ...fromButler, id: 60, conversation_id: 1, stream_id: 's1', payload: 'Hello from **Butler**.' })], state);
    expect(items(state)).toEqual([expect.objectContaining({ key: 's:2:s1', id: 60, status: 'confirmed', text: 'Hello from **Butler**.' })]);
    const ended = run([frame({ type: 'CHAT_STREAM_END', ...fromButler, conversation_id: 1, stream_id: 's1', payload: '' }), chunk('late')], state);
    expect(items(ended)).toEqual(items(state));
  });

  it('keeps streams apart by stream_id and sender', () => {
    const state = run([
      chunk('a', 's1'),
      frame({
        type: 'CHAT_STREAM',
        sender_id: AGENT,
        sender_name: 'echo',
        sender_role: 'AGENT',
        target_id: ME,
        conversation_id: 1,
        stream_id: 's1',
        payload: 'b',
      }),
      chunk('c', 's2'),
      chunk('a2', 's1'),
    ]);
    expect(items(state).map((i) => [i.sender_id, i.stream_id, i.text])).toEqual([
      [BUTLER, 's1', 'aa2'],
      [AGENT, 's1', 'b'],
      [BUTLER, 's2', 'c'],
    ]);
  });

  it('ends a stream whose final CHAT did not come first with what streamed, and takes the final text when it does come', () => {
    let state = run([chunk('partial'), frame({ type: 'CHAT_STREAM_END', ...fromButler, conversation_id: 1, stream_id: 's1', payload: '' })]);
    expect(items(state)).toEqual([expect.objectContaining({ status: 'confirmed', text: 'partial' })]);
    state = run([frame({ type: 'CHAT', ...fromButler, id: 61, conversation_id: 1, stream_id: 's1', payload: 'partial, then whole' })], state);
    expect(items(state)).toEqual([expect.objectContaining({ key: 's:2:s1', id: 61, text: 'partial, then whole' })]);
  });

  it('marks a stream cut by a dropped connection interrupted; more chunks, its end or its final CHAT take it from there', () => {
    const cut = { type: 'interrupted' as const, stream: { stream_id: 's1', sender_id: BUTLER, conversation_id: 1 } };
    let state = run([chunk('Hello '), chunk('other', 's2'), cut]);
    expect(items(state).map((i) => [i.stream_id, i.status, i.text])).toEqual([
      ['s1', 'interrupted', 'Hello '],
      ['s2', 'streaming', 'other'],
    ]);
    // The stream goes on after the reconnect.
    state = run([chunk('again')], state);
    expect(items(state)[0]).toEqual(expect.objectContaining({ status: 'streaming', text: 'Hello again' }));
    // Cut again, then its stored final CHAT (replayed on resume) replaces it.
    state = run([cut, frame({ type: 'CHAT', ...fromButler, id: 62, conversation_id: 1, stream_id: 's1', payload: 'Hello, whole.' })], state);
    expect(items(state)[0]).toEqual(expect.objectContaining({ key: 's:2:s1', id: 62, status: 'confirmed', text: 'Hello, whole.' }));
    // An interruption reported for a stream already ended changes nothing; an end after one keeps what arrived.
    expect(run([cut], state)).toBe(state);
    const ended = run(
      [cut, frame({ type: 'CHAT_STREAM_END', ...fromButler, conversation_id: 1, stream_id: 's2', payload: '' })],
      run([{ ...cut, stream: { ...cut.stream, stream_id: 's2' } }], state),
    );
    expect(items(ended)[1]).toEqual(expect.objectContaining({ stream_id: 's2', status: 'confirmed', text: 'other' }));
  });
});

describe('chat reducer: conversations and unread marks', () => {
  it('puts each frame in its conversation and marks the ones not on screen unread, once per message', () => {
    let state = run([{ type: 'view', conversationId: 1 }]);
    state = run(
      [
        frame({ type: 'CHAT', ...fromButler, id: 1, conversation_id: 1, payload: 'seen' }),
        frame({ type: 'CHAT', ...fromButler, id: 2, conversation_id: 2, payload: 'elsewhere' }),
        // A stream counts once, when its final text is stored.
        frame({
          type: 'CHAT_STREAM',
          sender_id: AGENT,
          sender_name: 'echo',
          sender_role: 'AGENT',
          target_id: ME,
          conversation_id: 3,
          stream_id: 'e',
          payload: 'a ',
        }),
        frame({
          type: 'CHAT_STREAM',
          sender_id: AGENT,
          sender_name: 'echo',
          sender_role: 'AGENT',
          target_id: ME,
          conversation_id: 3,
          stream_id: 'e',
          payload: 'b',
        }),
        frame({
          type: 'CHAT',
          sender_id: AGENT,
          sender_name: 'echo',
          sender_role: 'AGENT',
          target_id: ME,
          id: 3,
          conversation_id: 3,
          stream_id: 'e',
          payload: 'a b',
        }),
        // A replayed frame (resume after a gap) is no new message.
        frame({ type: 'CHAT', ...fromButler, id: 2, conversation_id: 2, payload: 'elsewhere' }),
        // Chat outside any conversation of ours is left out.
        frame({ type: 'CHAT', sender_id: AGENT, sender_name: 'echo', sender_role: 'AGENT', id: 4, payload: 'broadcast' }),
      ],
      state,
    );
    expect(items(state, 1).map((i) => i.text)).toEqual(['seen']);
    expect(items(state, 2).map((i) => i.text)).toEqual(['elsewhere']);
    expect(items(state, 3).map((i) => i.text)).toEqual(['a b']);
    expect([...state.unread]).toEqual([
      [2, 1],
      [3, 1],
    ]);
    expect([...unreadByPeer(state)]).toEqual([
      [BUTLER, 1],
      [AGENT, 1],
    ]);
    state = run([{ type: 'view', conversationId: 2 }], state);
    expect(state.unread.has(2)).toBe(false);
    expect(state.viewing).toBe(2);
  });
});

describe('chat reducer: history', () => {
  it('merges a page with what arrived live, in id order, without duplicates, and pages back', () => {
    let state = run([frame({ type: 'CHAT', ...fromButler, id: 5, conversation_id: 1, payload: 'live' }), send('mine')]);
    state = run(
      [{ type: 'history', conversationId: 1, peerId: BUTLER, messages: [row(3), row(4), row(5, { payload: 'live' })], limit: 3, older: false }],
      state,
    );
    expect(items(state).map((i) => i.id ?? i.key)).toEqual([3, 4, 5, 'l:mine']);
    expect(conversationOf(state, 1)).toMatchObject({ loaded: true, hasOlder: true });
    expect(state.peers.get(1)).toBe(BUTLER);

    state = run([{ type: 'history', conversationId: 1, peerId: BUTLER, messages: [row(1), row(2)], limit: 3, older: true }], state);
    expect(items(state).map((i) => i.id ?? i.key)).toEqual([1, 2, 3, 4, 5, 'l:mine']);
    expect(conversationOf(state, 1).hasOlder).toBe(false);
    // Only the message that arrived live is unread; history is not.
    expect([...state.unread]).toEqual([[1, 1]]);
  });

  it('confirms a pending send when its stored row comes back in a history page', () => {
    const state = run([
      send('slow', 'hello'),
      {
        type: 'history',
        conversationId: 1,
        peerId: BUTLER,
        messages: [row(9, { ...fromMe, receiver_id: BUTLER, local_id: 'slow', payload: 'hello' })],
        limit: 50,
        older: false,
      },
    ]);
    expect(items(state)).toEqual([expect.objectContaining({ key: 'l:slow', id: 9, status: 'confirmed' })]);
  });
});

describe('chat reducer: authorization requests', () => {
  const payload = { action_id: 'act-1', target_agent_id: AGENT, target_agent_name: 'echo', command: 'echo hi', reason: 'asked', status: 'PENDING' };

  it('shows an AUTH_REQUEST as a card and follows AUTH_STATUS_UPDATE; a stale row does not undo a decision', () => {
    let state = run([frame({ type: 'AUTH_REQUEST', ...fromButler, id: 20, conversation_id: 1, payload } as never)]);
    expect(items(state)).toEqual([expect.objectContaining({ type: 'AUTH_REQUEST', auth: payload })]);
    expect(state.unread.get(1)).toBe(1);
    state = run([frame({ type: 'AUTH_STATUS_UPDATE', ...fromButler, payload: { action_id: 'act-1', status: 'APPROVED' } } as never)], state);
    expect(items(state)[0]!.auth!.status).toBe('APPROVED');
    state = run(
      [
        {
          type: 'history',
          conversationId: 1,
          peerId: BUTLER,
          messages: [row(20, { type: 'AUTH_REQUEST', payload: JSON.stringify(payload) })],
          limit: 50,
          older: false,
        },
      ],
      state,
    );
    expect(items(state)[0]!.auth!.status).toBe('APPROVED');
  });

  it("reads the stored row's JSON text, and leaves text that is not a request as text", () => {
    const state = run([
      {
        type: 'history',
        conversationId: 1,
        peerId: BUTLER,
        messages: [
          row(1, { type: 'AUTH_REQUEST', payload: JSON.stringify({ ...payload, status: 'REJECTED' }) }),
          row(2, { type: 'AUTH_REQUEST', payload: 'not json' }),
        ],
        limit: 50,
        older: false,
      },
    ]);
    expect(items(state).map((i) => [i.type, i.auth?.status, i.text])).toEqual([
      ['AUTH_REQUEST', 'REJECTED', expect.any(String)],
      ['CHAT', undefined, 'not json'],
    ]);
    expect(parseAuthCard({ status: 'PENDING' })).toBeUndefined();
  });
});
