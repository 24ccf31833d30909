// The chat's state as a pure reducer over what happens to it: history pages read over HTTP, frames
// from the socket, and the user's own sends (pending → confirmed by the hub's echo or ACK, or failed
// with the hub's reason). Streams collect their chunks until the stored final CHAT replaces them; one
// whose connection dropped is `interrupted` (its end may never come) until its final CHAT or more
// chunks arrive. No I/O here, so it is tested on its own; chatLive.ts feeds it.
import type { ChatMessageView, InterruptedStream, ServerFrame } from '@hub/client';

/** `interrupted`: a stream cut by a dropped connection, showing what arrived; its final CHAT still replaces it. */
export type ItemStatus = 'pending' | 'confirmed' | 'failed' | 'streaming' | 'interrupted';

/** Butler's authorization request, as its chat row or AUTH_REQUEST frame carries it. */
export interface AuthCard {
  action_id: string;
  target_agent_id?: number;
  target_agent_name?: string;
  command?: string;
  reason?: string;
  status: string;
}

export interface ChatItem {
  /** Stays the same from pending to confirmed and from streaming to final, so the view keeps its element. */
  key: string;
  id?: number;
  local_id?: string;
  stream_id?: string;
  conversation_id: number;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  type: 'CHAT' | 'AUTH_REQUEST';
  text: string;
  auth?: AuthCard;
  timestamp: string;
  status: ItemStatus;
  /** Why a send failed. */
  error?: string;
}

export interface Conversation {
  /** Stored items by id, then what is not stored yet (pending sends, streams) in arrival order. */
  items: readonly ChatItem[];
  /** The newest page of its history was read. */
  loaded: boolean;
  /** Its history goes back further than the oldest item here. */
  hasOlder: boolean;
}

export interface ChatState {
  me: number;
  conversations: ReadonlyMap<number, Conversation>;
  /** Messages from the peer not yet seen, by conversation. */
  unread: ReadonlyMap<number, number>;
  /** The machine peer of each conversation seen. */
  peers: ReadonlyMap<number, number>;
  /** The conversation on screen: what arrives there is read at once. */
  viewing: number | undefined;
}

export interface Sender {
  id: number;
  name: string;
  role: string;
}

export type ChatEvent =
  | { type: 'history'; conversationId: number; peerId: number; messages: readonly ChatMessageView[]; limit: number; older: boolean }
  | { type: 'frame'; frame: ServerFrame }
  | { type: 'interrupted'; stream: InterruptedStream }
  | { type: 'send'; localId: string; conversationId: number; peerId: number; text: string; sender: Sender; timestamp: string }
  | { type: 'confirmed'; localId: string; id: number; timestamp: string }
  | { type: 'failed'; localId: string; error: string }
  | { type: 'retry'; localId: string; newLocalId: string; timestamp: string }
  | { type: 'discard'; localId: string }
  | { type: 'view'; conversationId: number | undefined };

export function initialChatState(me: number): ChatState {
  return { me, conversations: new Map(), unread: new Map(), peers: new Map(), viewing: undefined };
}

const EMPTY: Conversation = { items: [], loaded: false, hasOlder: false };

/**
 * Where the first message to a peer waits while the user has no thread with it: the hub makes the
 * default thread from that message, and its echo moves the message there. Negative, so never a thread id.
 */
export function firstMessageKey(peerId: number): number {
  return -peerId;
}

export function conversationOf(state: ChatState, id: number | undefined): Conversation {
  return (id !== undefined && state.conversations.get(id)) || EMPTY;
}

/** Unread messages per machine peer (all its conversations together). */
export function unreadByPeer(state: ChatState): Map<number, number> {
  const totals = new Map<number, number>();
  for (const [conversation, count] of state.unread) {
    const peer = state.peers.get(conversation);
    if (peer !== undefined && count > 0) totals.set(peer, (totals.get(peer) ?? 0) + count);
  }
  return totals;
}

/** An AUTH_REQUEST row's payload is JSON text; anything unreadable stays plain text. */
export function parseAuthCard(payload: unknown): AuthCard | undefined {
  let value = payload;
  if (typeof payload === 'string') {
    try {
      value = JSON.parse(payload);
    } catch {
      return undefined;
    }
  }
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v['action_id'] !== 'string') return undefined;
  const text = (key: string) => (typeof v[key] === 'string' ? (v[key] as string) : undefined);
  return {
    action_id: v['action_id'],
    target_agent_id: typeof v['target_agent_id'] === 'number' ? v['target_agent_id'] : undefined,
    target_agent_name: text('target_agent_name'),
    command: text('command'),
    reason: text('reason'),
    status: text('status') ?? 'PENDING',
  };
}

function storedItem(m: ChatMessageView & { conversation_id: number }): ChatItem {
  const auth = m.type === 'AUTH_REQUEST' ? parseAuthCard(m.payload) : undefined;
  const item: ChatItem = {
    key: `m:${m.id}`,
    id: m.id,
    conversation_id: m.conversation_id,
    sender_id: m.sender_id,
    sender_name: m.sender_name,
    sender_role: m.sender_role,
    type: auth ? 'AUTH_REQUEST' : 'CHAT',
    text: m.payload,
    timestamp: m.timestamp,
    status: 'confirmed',
  };
  if (auth) item.auth = auth;
  if (m.local_id) item.local_id = m.local_id;
  if (m.stream_id) item.stream_id = m.stream_id;
  return item;
}

/** Inserts a stored item at its place by id (before everything not stored yet). */
function placeStored(items: readonly ChatItem[], item: ChatItem): ChatItem[] {
  const id = item.id!;
  let at = items.length;
  for (let i = items.length - 1; i >= 0; i--) {
    const other = items[i]!.id;
    if (other === undefined || other > id) at = i;
    else break;
  }
  return [...items.slice(0, at), item, ...items.slice(at)];
}

/**
 * Merges one stored message into a conversation: it confirms the pending send with its local_id
 * (ours), replaces the stream with its stream_id, updates the row already there, or is new.
 * Answers whether it was new to this conversation.
 */
function mergeStored(conversation: Conversation, item: ChatItem, me: number): { conversation: Conversation; added: boolean } {
  const items = conversation.items;
  const same = items.findIndex((i) => i.id === item.id);
  if (same >= 0) {
    const existing = items[same]!;
    // A stored row only changes its authorization status; keep the newer status if the frame was first.
    const merged: ChatItem = {
      ...item,
      key: existing.key,
      auth: item.auth && existing.auth ? { ...item.auth, status: newerStatus(existing.auth.status, item.auth.status) } : item.auth,
    };
    if (!merged.auth) delete merged.auth;
    return { conversation: { ...conversation, items: items.map((i, n) => (n === same ? merged : i)) }, added: false };
  }
  const unstored = items.findIndex(
    (i) =>
      i.id === undefined &&
      ((item.local_id !== undefined && i.local_id === item.local_id && item.sender_id === me) ||
        (item.stream_id !== undefined && i.stream_id === item.stream_id && i.sender_id === item.sender_id)),
  );
  if (unstored >= 0) {
    const previous = items[unstored]!;
    const rest = items.filter((_, n) => n !== unstored);
    // A stream's final CHAT is the peer's new message; our own send is never unread.
    return { conversation: { ...conversation, items: placeStored(rest, { ...item, key: previous.key }) }, added: previous.sender_id !== me };
  }
  return { conversation: { ...conversation, items: placeStored(items, item) }, added: true };
}

/** PENDING is where every request starts; a decision never goes back to it. */
function newerStatus(a: string, b: string): string {
  return a === 'PENDING' ? b : a;
}

function setConversation(state: ChatState, id: number, conversation: Conversation): ChatState {
  const conversations = new Map(state.conversations);
  conversations.set(id, conversation);
  return { ...state, conversations };
}

function learnPeer(state: ChatState, conversationId: number, peerId: number | undefined | null): ChatState {
  if (peerId === undefined || peerId === null || peerId === state.me || state.peers.get(conversationId) === peerId) return state;
  const peers = new Map(state.peers);
  peers.set(conversationId, peerId);
  return { ...state, peers };
}

function bumpUnread(state: ChatState, conversationId: number): ChatState {
  if (state.viewing === conversationId) return state;
  const unread = new Map(state.unread);
  unread.set(conversationId, (unread.get(conversationId) ?? 0) + 1);
  return { ...state, unread };
}

/** The conversation holding the send with this local_id, and its index there. */
function findSend(state: ChatState, localId: string): { conversationId: number; index: number } | undefined {
  for (const [conversationId, conversation] of state.conversations) {
    const index = conversation.items.findIndex((i) => i.id === undefined && i.local_id === localId);
    if (index >= 0) return { conversationId, index };
  }
  return undefined;
}

function updateSend(state: ChatState, localId: string, change: (item: ChatItem) => ChatItem | undefined): ChatState {
  const found = findSend(state, localId);
  if (!found) return state;
  const conversation = state.conversations.get(found.conversationId)!;
  const item = conversation.items[found.index]!;
  const next = change(item);
  if (next === item) return state;
  const rest = conversation.items.filter((_, n) => n !== found.index);
  const items = next === undefined ? rest : next.id !== undefined ? placeStored(rest, next) : conversation.items.map((i, n) => (n === found.index ? next : i));
  return setConversation(state, found.conversationId, { ...conversation, items });
}

function confirmSend(state: ChatState, localId: string, id: number, timestamp: string): ChatState {
  // The echo may have been merged already (it carries the same id): then the pending copy goes.
  const found = findSend(state, localId);
  if (!found) return state;
  const conversation = state.conversations.get(found.conversationId)!;
  if (conversation.items.some((i) => i.id === id)) return updateSend(state, localId, () => undefined);
  return updateSend(state, localId, (item) => ({ ...item, id, timestamp, status: 'confirmed', error: undefined }));
}

function onFrame(state: ChatState, frame: ServerFrame): ChatState {
  switch (frame.type) {
    case 'ACK':
      return confirmSend(state, frame.local_id, frame.id, frame.timestamp);
    case 'ERROR':
      // `unavailable`: the client sends it again by itself.
      if (frame.local_id === undefined || frame.payload.code === 'unavailable') return state;
      return updateSend(state, frame.local_id, (item) => (item.status === 'pending' ? { ...item, status: 'failed', error: frame.payload.message } : item));
    case 'AUTH_STATUS_UPDATE':
      return authStatus(state, frame.payload.action_id, frame.payload.status);
    case 'CHAT':
    case 'AUTH_REQUEST':
      return onStored(state, frame);
    case 'CHAT_STREAM':
      return onChunk(state, frame);
    case 'CHAT_STREAM_END':
      return onStreamEnd(state, frame);
    default:
      return state;
  }
}

function onStored(state: ChatState, frame: Extract<ServerFrame, { type: 'CHAT' | 'AUTH_REQUEST' }>): ChatState {
  const conversationId = frame.conversation_id;
  // Chat outside a conversation of this user (an agent's broadcast) belongs to no thread.
  if (conversationId === undefined || frame.id === undefined) return state;
  const payload = typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload);
  const view: ChatMessageView & { conversation_id: number } = {
    id: frame.id,
    local_id: frame.local_id ?? null,
    conversation_id: conversationId,
    sender_id: frame.sender_id,
    sender_name: frame.sender_name,
    sender_role: frame.sender_role,
    receiver_id: frame.target_id ?? null,
    target_id: frame.target_id ?? null,
    type: frame.type,
    payload,
    timestamp: frame.timestamp,
  };
  if (frame.stream_id !== undefined) view.stream_id = frame.stream_id;
  let next = frame.sender_id === state.me && frame.local_id !== undefined ? moveFirstMessage(state, frame.local_id, conversationId) : state;
  next = learnPeer(next, conversationId, frame.sender_id === state.me ? frame.target_id : frame.sender_id);
  const { conversation, added } = mergeStored(conversationOf(next, conversationId), storedItem(view), state.me);
  next = setConversation(next, conversationId, conversation);
  return added && frame.sender_id !== state.me ? bumpUnread(next, conversationId) : next;
}

/** Our first message to a peer, sent before there was a thread, joins the thread the hub filed it in. */
function moveFirstMessage(state: ChatState, localId: string, conversationId: number): ChatState {
  for (const [id, conversation] of state.conversations) {
    if (id >= 0) continue;
    const item = conversation.items.find((i) => i.local_id === localId);
    if (!item) continue;
    const target = conversationOf(state, conversationId);
    const moved = setConversation(state, id, { ...conversation, items: conversation.items.filter((i) => i !== item) });
    return setConversation(moved, conversationId, { ...target, items: [...target.items, { ...item, conversation_id: conversationId }] });
  }
  return state;
}

function onChunk(state: ChatState, frame: Extract<ServerFrame, { type: 'CHAT_STREAM' }>): ChatState {
  const conversationId = frame.conversation_id;
  const streamId = frame.stream_id;
  if (conversationId === undefined || streamId === undefined) return state;
  const next = learnPeer(state, conversationId, frame.sender_id === state.me ? frame.target_id : frame.sender_id);
  const conversation = conversationOf(next, conversationId);
  const index = conversation.items.findIndex((i) => i.stream_id === streamId && i.sender_id === frame.sender_id);
  if (index >= 0) {
    const item = conversation.items[index]!;
    // A chunk after the final text (a replay) changes nothing; one after an interruption means the stream goes on.
    if (item.status !== 'streaming' && item.status !== 'interrupted') return state;
    const grown: ChatItem = { ...item, text: item.text + frame.payload, status: 'streaming' };
    return setConversation(next, conversationId, { ...conversation, items: conversation.items.map((i, n) => (n === index ? grown : i)) });
  }
  const item: ChatItem = {
    key: `s:${frame.sender_id}:${streamId}`,
    stream_id: streamId,
    conversation_id: conversationId,
    sender_id: frame.sender_id,
    sender_name: frame.sender_name,
    sender_role: frame.sender_role,
    type: 'CHAT',
    text: frame.payload,
    timestamp: frame.timestamp,
    status: 'streaming',
  };
  return setConversation(next, conversationId, { ...conversation, items: [...conversation.items, item] });
}

function onStreamEnd(state: ChatState, frame: Extract<ServerFrame, { type: 'CHAT_STREAM_END' }>): ChatState {
  const conversationId = frame.conversation_id;
  if (conversationId === undefined || frame.stream_id === undefined) return state;
  const conversation = state.conversations.get(conversationId);
  const index = conversation?.items.findIndex((i) => i.stream_id === frame.stream_id && i.sender_id === frame.sender_id && isOpenStream(i)) ?? -1;
  if (!conversation || index < 0) return state;
  // The final CHAT normally came first; without it, what streamed is all there is.
  return setConversation(state, conversationId, {
    ...conversation,
    items: conversation.items.map((i, n) => (n === index ? { ...i, status: 'confirmed' } : i)),
  });
}

const isOpenStream = (item: ChatItem) => item.id === undefined && (item.status === 'streaming' || item.status === 'interrupted');

/** The connection dropped while this stream was arriving: it stops showing as being written. */
function onInterrupted(state: ChatState, stream: InterruptedStream): ChatState {
  const conversationId = stream.conversation_id;
  if (conversationId === undefined) return state;
  const conversation = state.conversations.get(conversationId);
  const index = conversation?.items.findIndex((i) => i.stream_id === stream.stream_id && i.sender_id === stream.sender_id && i.status === 'streaming') ?? -1;
  if (!conversation || index < 0) return state;
  return setConversation(state, conversationId, {
    ...conversation,
    items: conversation.items.map((i, n) => (n === index ? { ...i, status: 'interrupted' } : i)),
  });
}

function authStatus(state: ChatState, actionId: string, status: string): ChatState {
  let next = state;
  for (const [id, conversation] of state.conversations) {
    if (!conversation.items.some((i) => i.auth?.action_id === actionId && i.auth.status !== status)) continue;
    const items = conversation.items.map((i) => (i.auth?.action_id === actionId ? { ...i, auth: { ...i.auth, status } } : i));
    next = setConversation(next, id, { ...conversation, items });
  }
  return next;
}

function onHistory(state: ChatState, event: Extract<ChatEvent, { type: 'history' }>): ChatState {
  let next = learnPeer(state, event.conversationId, event.peerId);
  let conversation = conversationOf(next, event.conversationId);
  for (const message of event.messages) {
    conversation = mergeStored(conversation, storedItem({ ...message, conversation_id: event.conversationId }), state.me).conversation;
  }
  const full = event.messages.length >= event.limit;
  const hasOlder = event.older ? full : conversation.loaded ? conversation.hasOlder : full;
  next = setConversation(next, event.conversationId, { ...conversation, loaded: true, hasOlder });
  return next;
}

export function chatReducer(state: ChatState, event: ChatEvent): ChatState {
  switch (event.type) {
    case 'history':
      return onHistory(state, event);
    case 'frame':
      return onFrame(state, event.frame);
    case 'interrupted':
      return onInterrupted(state, event.stream);
    case 'send': {
      const item: ChatItem = {
        key: `l:${event.localId}`,
        local_id: event.localId,
        conversation_id: event.conversationId,
        sender_id: event.sender.id,
        sender_name: event.sender.name,
        sender_role: event.sender.role,
        type: 'CHAT',
        text: event.text,
        timestamp: event.timestamp,
        status: 'pending',
      };
      const next = learnPeer(state, event.conversationId, event.peerId);
      const conversation = conversationOf(next, event.conversationId);
      return setConversation(next, event.conversationId, { ...conversation, items: [...conversation.items, item] });
    }
    case 'confirmed':
      return confirmSend(state, event.localId, event.id, event.timestamp);
    case 'failed':
      return updateSend(state, event.localId, (item) => (item.status === 'pending' ? { ...item, status: 'failed', error: event.error } : item));
    case 'retry':
      return updateSend(state, event.localId, (item) =>
        item.status === 'failed' ? { ...item, local_id: event.newLocalId, timestamp: event.timestamp, status: 'pending', error: undefined } : item,
      );
    case 'discard':
      return updateSend(state, event.localId, (item) => (item.status === 'failed' ? undefined : item));
    case 'view': {
      if (event.conversationId === undefined || !state.unread.get(event.conversationId)) {
        return state.viewing === event.conversationId ? state : { ...state, viewing: event.conversationId };
      }
      const unread = new Map(state.unread);
      unread.delete(event.conversationId);
      return { ...state, viewing: event.conversationId, unread };
    }
  }
}
