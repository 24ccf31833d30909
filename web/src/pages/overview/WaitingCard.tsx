// The oldest message of the signed-in user that an agent or Butler has not answered yet, and how
// many conversations are waiting: one server query (GET /api/stats/unanswered), read again when a
// chat to or from the user arrives and after every reconnection.
import type { UserView } from '@hub/client';
import { Link } from 'wouter';
import { useHub } from '../../app/context';
import { Card, ErrorNote, Time } from '../../components/ui';
import { useLiveStats } from '../../hooks/useLiveStats';
import { useStore } from '../../lib/store';

const PREVIEW = 140;

export function WaitingCard({ users }: { users: ReadonlyMap<number, UserView> }) {
  const { stats, session } = useHub();
  const me = useStore(session.current)?.user.id ?? 0;
  const waiting = useLiveStats(() => stats.unanswered(), [stats], {
    when: (frame) => frame.type === 'CHAT' && (frame.sender_id === me || frame.target_id === me),
    settleMs: 150,
  });
  const oldest = waiting.data?.oldest ?? undefined;
  const peer = oldest ? users.get(oldest.peer_id) : undefined;
  const count = waiting.data?.conversations ?? 0;

  return (
    <Card className="overview-waiting" title="Oldest unanswered message">
      <div data-testid="oldest-unanswered">
        {waiting.error && !waiting.data ? (
          <ErrorNote error={waiting.error} retry={waiting.reload} />
        ) : !waiting.data ? (
          <p className="loading" role="status">
            <span className="spinner" aria-hidden /> Reading your conversations…
          </p>
        ) : oldest ? (
          <>
            <blockquote className="overview-quote">{oldest.text.length > PREVIEW ? `${oldest.text.slice(0, PREVIEW)}…` : oldest.text}</blockquote>
            <p className="overview-line">
              To <strong>{peer?.username ?? `user ${oldest.peer_id}`}</strong>, sent <Time iso={oldest.timestamp} />.{' '}
              {count > 1 ? `${count} conversations are waiting.` : 'No other conversation is waiting.'}
            </p>
            <Link href={`/chat/${oldest.peer_id}`} className="btn btn-small">
              Open the chat
            </Link>
          </>
        ) : (
          <p className="muted">Nothing is waiting: every agent you wrote to has answered.</p>
        )}
      </div>
      <p className="overview-hint">Your oldest message to an agent or Butler that has had no reply from it since.</p>
    </Card>
  );
}
