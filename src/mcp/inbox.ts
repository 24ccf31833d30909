// Waiting for an answer on behalf of an MCP caller: while a tool waits (send_message with
// wait_seconds, ask_butler), the caller holds an endpoint inside the hub, bound to the router like
// a dashboard tab of theirs, so it hears exactly what their own sockets would: the peer's stream
// chunks (passed on as progress) and the stored CHAT that ends the answer. Bound before the message
// is posted, so an answer cannot slip past; committed batches from other nodes reach it the same
// way. Closed by the router when the user's access ends (deletion, role change, reset): the wait
// then fails with that reason.
import type { RouterEvent } from '../actors/router.js';
import type { Endpoint, Principal } from '../delivery/types.js';
import { HubError } from '../errors.js';
import type { MessageFrame } from '../protocol/frames.js';

/** Keys far below the connector's (-user id) and Butler's (0): unique for the life of the hub. */
const KEY_BASE = -(2 ** 40);
let lastKey = 0;

export interface Exchange {
  /** Whose answer is awaited. */
  peerId: number;
  /** The stored id of the caller's message: the answer comes after it. */
  afterId: number;
  /** The thread of the caller's message; an answer in another thread is not this one's. */
  conversationId: number | null;
}

export interface Answer {
  id: number;
  text: string;
  conversation_id: number | null;
  timestamp: string;
}

export interface Inbox {
  /** Starts matching frames for this exchange (frames heard since the bind are matched too). */
  expect(exchange: Exchange): void;
  /** Each stream chunk of the answer, as it comes. */
  onChunk(listener: (text: string) => void): void;
  /** Authorization requests the peer (Butler) addressed to the caller in this exchange, before it answered. */
  readonly authRequests: readonly MessageFrame[];
  /** The answer; undefined when `ms` pass or `signal` aborts first. Rejects when the router closed the endpoint. */
  answer(ms: number, signal: AbortSignal): Promise<Answer | undefined>;
  close(): void;
}

export function openInbox(router: { send(event: RouterEvent): void }, user: Principal): Inbox {
  const heard: MessageFrame[] = [];
  const authRequests: MessageFrame[] = [];
  const chunkListeners: Array<(text: string) => void> = [];
  let exchange: Exchange | undefined;
  let found: Answer | undefined;
  let closedReason: string | undefined;
  let wake: (() => void) | undefined;
  let bound = true;

  const belongs = (frame: MessageFrame, ex: Exchange) =>
    frame.sender_id === ex.peerId &&
    frame.target_id === user.id &&
    (ex.conversationId === null || frame.conversation_id === undefined || frame.conversation_id === ex.conversationId);

  function consider(frame: MessageFrame): void {
    const ex = exchange;
    if (!ex || !belongs(frame, ex)) return;
    if (frame.type === 'AUTH_REQUEST') authRequests.push(frame);
    if (found) return;
    if (frame.type === 'CHAT_STREAM' && typeof frame.payload === 'string') {
      for (const listener of chunkListeners) listener(frame.payload);
    } else if (frame.type === 'CHAT' && frame.id !== undefined && frame.id > ex.afterId) {
      found = {
        id: frame.id,
        text: typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload),
        conversation_id: frame.conversation_id ?? null,
        timestamp: frame.timestamp,
      };
      wake?.();
    }
  }

  const endpoint: Endpoint = {
    key: KEY_BASE - ++lastKey,
    user,
    inHub: true,
    authenticatedAt: Date.now(),
    deliver(_text, _id, frame) {
      if (!frame) return;
      if (exchange) consider(frame);
      else heard.push(frame);
    },
    close(_code, reason) {
      closedReason = reason;
      release();
      wake?.();
    },
  };

  function release(): void {
    if (!bound) return;
    bound = false;
    router.send({ type: 'UNBIND', endpoint });
  }

  router.send({ type: 'BIND', endpoint });

  return {
    expect(ex) {
      exchange = ex;
      for (const frame of heard.splice(0)) consider(frame);
    },
    onChunk(listener) {
      chunkListeners.push(listener);
    },
    authRequests,
    answer(ms, signal) {
      return new Promise((resolve, reject) => {
        const settle = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', settle);
          wake = undefined;
          if (found) resolve(found);
          else if (closedReason !== undefined) reject(new HubError('unauthorized', `the wait ended: ${closedReason}`));
          else resolve(undefined);
        };
        const timer = setTimeout(settle, ms);
        signal.addEventListener('abort', settle, { once: true });
        wake = settle;
        if (found || closedReason !== undefined || signal.aborted) settle();
      });
    },
    close: release,
  };
}
