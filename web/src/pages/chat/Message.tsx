// One message of a conversation: the peer's on the left, the user's on the right with its delivery
// state (sending, sent, or not sent with the hub's reason and a retry), a stream growing as it arrives
// (or what arrived of it, marked interrupted when the connection dropped), and Butler's authorization
// requests as cards.
import { memo } from 'react';
import { Button, Time } from '../../components/ui';
import type { ChatItem } from '../../state/chat';
import { AuthCard } from './AuthCard';
import { Markdown } from './Markdown';

interface Props {
  item: ChatItem;
  mine: boolean;
  onRetry(localId: string): void;
  onDiscard(localId: string): void;
  /** For an authorization card: when the peer last wrote after it (an answer after the decision ends the wait). */
  repliedAt?: string;
}

export const Message = memo(function Message({ item, mine, onRetry, onDiscard, repliedAt }: Props) {
  return (
    <article
      className={`msg ${mine ? 'msg-mine' : 'msg-theirs'}`}
      data-testid="message"
      data-status={item.status}
      data-mine={mine || undefined}
      aria-label={`${mine ? 'You' : item.sender_name}`}
    >
      <header className="msg-head">
        <span className="msg-author">{mine ? 'You' : item.sender_name}</span>
        <Time iso={item.timestamp} />
        {mine ? <Delivery item={item} /> : null}
        {item.status === 'streaming' ? (
          <span className="msg-typing" role="status">
            writing…
          </span>
        ) : null}
        {item.status === 'interrupted' ? (
          <span
            className="msg-interrupted"
            role="status"
            title="The connection dropped while this answer was arriving. The whole answer replaces it if it still comes."
          >
            interrupted
          </span>
        ) : null}
      </header>
      {item.auth ? (
        <AuthCard card={item.auth} repliedAt={repliedAt} />
      ) : (
        <div className="msg-body">
          <Markdown text={item.text} />
        </div>
      )}
      {item.status === 'failed' && item.local_id ? (
        <div className="msg-failed" role="alert">
          <span>Not sent: {item.error ?? 'the hub refused it'}</span>
          <Button className="btn-small" onClick={() => onRetry(item.local_id!)}>
            Retry
          </Button>
          <Button className="btn-small" variant="ghost" onClick={() => onDiscard(item.local_id!)}>
            Discard
          </Button>
        </div>
      ) : null}
    </article>
  );
});

function Delivery({ item }: { item: ChatItem }) {
  if (item.status === 'pending') return <span className="msg-delivery msg-pending">Sending…</span>;
  if (item.status === 'failed') return <span className="msg-delivery msg-not-sent">Not sent</span>;
  return (
    <span className="msg-delivery msg-sent" title="The hub stored it">
      Sent
    </span>
  );
}
