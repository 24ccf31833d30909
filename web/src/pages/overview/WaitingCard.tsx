// The oldest message of the signed-in user that an agent or Butler has not answered yet, and how
// many conversations are waiting, kept current by live chat.
import type { UserView } from '@hub/client';
import { Link } from 'wouter';
import { Card, ErrorNote, Time } from '../../components/ui';
import { oldestWaiting } from './unanswered';
import { MAX_PEERS, useWaiting } from './useWaiting';

const PREVIEW = 140;

export function WaitingCard({ users }: { users: ReadonlyMap<number, UserView> }) {
  const waiting = useWaiting();
  const oldest = oldestWaiting(waiting.byPeer);
  const peer = oldest ? users.get(oldest.peerId) : undefined;
  const count = waiting.byPeer.size;

  return (
    <Card className="overview-waiting" title="Oldest unanswered message">
      <div data-testid="oldest-unanswered">
        {waiting.error ? (
          <ErrorNote error={waiting.error} retry={waiting.reload} />
        ) : waiting.loading && !oldest ? (
          <p className="loading" role="status">
            <span className="spinner" aria-hidden /> Reading your conversations…
          </p>
        ) : oldest ? (
          <>
            <blockquote className="overview-quote">{oldest.text.length > PREVIEW ? `${oldest.text.slice(0, PREVIEW)}…` : oldest.text}</blockquote>
            <p className="overview-line">
              To <strong>{peer?.username ?? `user ${oldest.peerId}`}</strong>, sent <Time iso={oldest.timestamp} />.{' '}
              {count > 1 ? `${count} conversations are waiting.` : 'No other conversation is waiting.'}
            </p>
            <Link href={`/chat/${oldest.peerId}`} className="btn btn-small">
              Open the chat
            </Link>
          </>
        ) : (
          <p className="muted">Nothing is waiting: every agent you wrote to has answered.</p>
        )}
      </div>
      <p className="overview-hint">
        Your oldest message to an agent or Butler that has had no reply from it since
        {waiting.truncated ? ` (your ${MAX_PEERS} most recent conversations)` : ''}.
      </p>
    </Card>
  );
}
