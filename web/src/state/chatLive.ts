// The session's chat: every chat frame feeds the reducer (chat.ts) from sign-in on, so unread markers
// count while another page is open; history pages are read when a conversation is opened or scrolled
// back; sends go over the live socket and settle by the hub's echo, its ACK or its refusal. A gap in
// the connection needs no reload: the client resumes from the last id it saw, and a stream it cut is
// shown interrupted (its chunks are never replayed; its stored final CHAT is).
import { ChatTypes, type RestClient, type ServerFrame } from '@hub/client';
import { describeError } from '../lib/errors';
import type { Live } from '../lib/live';
import { createStore, type Store } from '../lib/store';
import { chatReducer, conversationOf, initialChatState, type ChatEvent, type ChatState, type Sender } from './chat';

/** Messages per history page. */
export const HISTORY_PAGE = 50;

const CHAT_FRAMES = new Set<ServerFrame['type']>([...ChatTypes, 'AUTH_REQUEST', 'AUTH_STATUS_UPDATE', 'ACK', 'ERROR']);

export interface ChatLive {
  state: Store<ChatState>;
  /** Reads the newest page of a conversation; one read at a time per conversation. */
  load(conversationId: number, peerId: number): Promise<void>;
  /** Reads the page before the oldest message held. */
  loadOlder(conversationId: number, peerId: number): Promise<void>;
  /** `conversationId` is firstMessageKey(peerId) while the user has no thread with the peer. */
  send(peerId: number, conversationId: number, text: string): void;
  retry(localId: string): void;
  discard(localId: string): void;
  /** The conversation on screen (undefined: none): it collects no unread marks. */
  view(conversationId: number | undefined): void;
  dispose(): void;
}

export function createChat(api: RestClient, live: Live, me: Sender): ChatLive {
  const state = createStore(initialChatState(me.id));
  const dispatch = (event: ChatEvent) => state.set((prev) => chatReducer(prev, event));
  const reads = new Map<string, Promise<void>>();

  function once(key: string, read: () => Promise<void>): Promise<void> {
    let running = reads.get(key);
    if (!running) {
      running = read().finally(() => reads.delete(key));
      reads.set(key, running);
    }
    return running;
  }

  function transmit(localId: string, peerId: number, conversationId: number, text: string) {
    // A first message names no thread: the hub files it in the default thread it makes for it.
    const thread = conversationId > 0 ? { conversation_id: conversationId } : {};
    live.client.send({ type: 'CHAT', target_id: peerId, ...thread, payload: text, local_id: localId }).then(
      (receipt) => {
        if (receipt.id !== undefined) dispatch({ type: 'confirmed', localId, id: receipt.id, timestamp: receipt.timestamp ?? new Date().toISOString() });
      },
      (err: unknown) => dispatch({ type: 'failed', localId, error: describeError(err) }),
    );
  }

  const offFrames = live.client.on('frame', (frame) => {
    if (CHAT_FRAMES.has(frame.type)) dispatch({ type: 'frame', frame });
  });
  const offInterrupted = live.client.on('streamInterrupted', (stream) => dispatch({ type: 'interrupted', stream }));

  return {
    state,
    load(conversationId, peerId) {
      return once(`new:${conversationId}`, async () => {
        const messages = await api.chat.threadMessages(conversationId, { limit: HISTORY_PAGE });
        dispatch({ type: 'history', conversationId, peerId, messages, limit: HISTORY_PAGE, older: false });
      });
    },
    loadOlder(conversationId, peerId) {
      return once(`old:${conversationId}`, async () => {
        const oldest = conversationOf(state.get(), conversationId).items.find((i) => i.id !== undefined)?.id;
        const messages = await api.chat.threadMessages(conversationId, { limit: HISTORY_PAGE, before_id: oldest });
        dispatch({ type: 'history', conversationId, peerId, messages, limit: HISTORY_PAGE, older: true });
      });
    },
    send(peerId, conversationId, text) {
      const localId = `web-${crypto.randomUUID()}`;
      dispatch({ type: 'send', localId, conversationId, peerId, text, sender: me, timestamp: new Date().toISOString() });
      transmit(localId, peerId, conversationId, text);
    },
    retry(localId) {
      const current = state.get();
      for (const [conversationId, conversation] of current.conversations) {
        const item = conversation.items.find((i) => i.local_id === localId && i.status === 'failed');
        const peerId = current.peers.get(conversationId);
        if (!item || peerId === undefined) continue;
        // A fresh local_id: the hub stored nothing under the refused one, and the client forgot it.
        const newLocalId = `web-${crypto.randomUUID()}`;
        dispatch({ type: 'retry', localId, newLocalId, timestamp: new Date().toISOString() });
        transmit(newLocalId, peerId, conversationId, item.text);
        return;
      }
    },
    discard: (localId) => dispatch({ type: 'discard', localId }),
    view: (conversationId) => dispatch({ type: 'view', conversationId }),
    dispose() {
      offFrames();
      offInterrupted();
    },
  };
}
