// The messages of one thread and the composer. It follows the newest message while the user is at
// the bottom (a stream grows in view), keeps its place when older pages are put on top (read when
// scrolled to the top, or with the button), and marks the thread read while it is on screen.
import type { UserView } from '@hub/client';
import { Fragment, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useHub } from '../../app/context';
import { Button, ErrorNote, Loading } from '../../components/ui';
import { useStore } from '../../lib/store';
import { conversationOf, firstMessageKey, type ChatItem } from '../../state/chat';
import { isButler } from '../../state/agents';
import { Composer } from './Composer';
import { Message } from './Message';
import { peerLabel } from './PeerList';

/** Pixels from an edge that count as being at it. */
const EDGE = 60;

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
const dayOf = (iso: string) => new Date(iso).toDateString();

/** One thread's messages; without a thread (the user never wrote to the peer) the first message's. */
export function Conversation({ peer, threadId }: { peer: UserView; threadId: number | undefined }) {
  const { chat, session } = useHub();
  const me = useStore(session.current)!.user.id;
  const key = threadId ?? firstMessageKey(peer.id);
  const conversation = conversationOf(useStore(chat.state), key);
  const { items, hasOlder } = conversation;
  // Before the first message there is no history to read.
  const loaded = threadId === undefined || conversation.loaded;
  const [error, setError] = useState<unknown>();
  const [olderError, setOlderError] = useState<unknown>();
  const [loadingOlder, setLoadingOlder] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const before = useRef<{ firstKey: string | undefined; height: number }>({ firstKey: undefined, height: 0 });

  const load = useCallback(() => {
    setError(undefined);
    if (threadId !== undefined) chat.load(threadId, peer.id).catch((err: unknown) => setError(err));
  }, [chat, threadId, peer.id]);
  useEffect(load, [load]);

  useEffect(() => {
    chat.view(key);
    return () => chat.view(undefined);
  }, [chat, key]);

  const loadOlder = useCallback(() => {
    if (loadingOlder || threadId === undefined) return;
    setLoadingOlder(true);
    setOlderError(undefined);
    chat
      .loadOlder(threadId, peer.id)
      .catch((err: unknown) => setOlderError(err))
      .finally(() => setLoadingOlder(false));
  }, [chat, threadId, peer.id, loadingOlder]);

  // After each render: older messages on top keep the view where it was; otherwise follow the end.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const firstKey = items[0]?.key;
    const prev = before.current;
    if (prev.firstKey !== undefined && firstKey !== prev.firstKey && items.some((i) => i.key === prev.firstKey)) {
      el.scrollTop += el.scrollHeight - prev.height;
    } else if (atBottom.current) {
      el.scrollTop = el.scrollHeight;
    }
    before.current = { firstKey, height: el.scrollHeight };
    // A first page shorter than the view leaves nothing to scroll: read further back at once.
    if (loaded && hasOlder && !loadingOlder && !olderError && el.scrollHeight <= el.clientHeight) loadOlder();
  }, [items, loaded, hasOlder, loadingOlder, olderError, loadOlder]);

  function onScroll() {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < EDGE;
    if (el.scrollTop < EDGE && hasOlder && !loadingOlder && !olderError) loadOlder();
  }

  const send = useCallback(
    (text: string) => {
      atBottom.current = true;
      chat.send(peer.id, key, text);
    },
    [chat, peer.id, key],
  );
  const retry = useCallback((localId: string) => chat.retry(localId), [chat]);
  const discard = useCallback((localId: string) => chat.discard(localId), [chat]);
  const name = peerLabel(peer);

  return (
    <>
      <div className="conv-scroll" ref={scroller} onScroll={onScroll} data-testid="messages">
        <div className="conv-messages" role="log" aria-label={`Messages with ${name}`} aria-live="polite" aria-relevant="additions">
          {hasOlder ? (
            <div className="conv-older">
              <Button className="btn-small" variant="ghost" busy={loadingOlder} onClick={loadOlder}>
                Load older messages
              </Button>
            </div>
          ) : null}
          <ErrorNote error={olderError} retry={loadOlder} />
          <ErrorNote error={error} retry={load} />
          {!loaded && !error ? <Loading what="messages" /> : null}
          {loaded && items.length === 0 ? <EmptyConversation peer={peer} /> : null}
          {items.map((item, n) => (
            <Fragment key={item.key}>
              {n === 0 || dayOf(items[n - 1]!.timestamp) !== dayOf(item.timestamp) ? (
                <div className="conv-day" role="separator">
                  <span>{dayFormat.format(new Date(item.timestamp))}</span>
                </div>
              ) : null}
              <Message
                item={item}
                mine={item.sender_id === me}
                onRetry={retry}
                onDiscard={discard}
                repliedAt={item.auth ? lastReplyAfter(items, n, me) : undefined}
              />
            </Fragment>
          ))}
        </div>
      </div>
      <Composer key={key} conversationId={key} peerName={name} onSend={send} />
    </>
  );
}

function EmptyConversation({ peer }: { peer: UserView }) {
  if (isButler(peer)) {
    return (
      <p className="chat-hint conv-empty">
        No messages yet. Ask Butler anything: it knows the agents on this hub and, with your approval, sends them commands.
      </p>
    );
  }
  return (
    <p className="chat-hint conv-empty">
      No messages yet. What you write goes to {peer.username}
      {peer.online ? '.' : ', which is offline now: it reads it when it connects again.'}
    </p>
  );
}

/** When the peer last wrote after item `n` (not counting authorization cards): an approved command's answer. */
function lastReplyAfter(items: readonly ChatItem[], n: number, me: number): string | undefined {
  let last: string | undefined;
  for (let i = n + 1; i < items.length; i++) {
    const later = items[i]!;
    if (later.sender_id !== me && !later.auth && (last === undefined || later.timestamp > last)) last = later.timestamp;
  }
  return last;
}
