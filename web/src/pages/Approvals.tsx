// Butler's authorization requests: what it wants to run on which agent, for whom, and the outcome.
// Filter by status (kept in the address), page back with "Load more", approve or reject what is
// still pending. New requests and decisions arrive live.
import type { AuthorizationView } from '@hub/client';
import { Link, useLocation, useSearch } from 'wouter';
import { useHub } from '../app/context';
import { Button, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/ui';
import { useStore } from '../lib/store';
import { AuthActions, DecisionNote, decisionTitle, StatusBadge, useAuthStatus, useDecision } from './chat/AuthActions';
import { useAuthRequests, type StatusFilter } from './approvals/useAuthRequests';
import { usePeople } from './approvals/usePeople';
import './Approvals.css';

const FILTERS: Array<{ value: StatusFilter; label: string }> = [
  { value: 'PENDING', label: 'Waiting' },
  { value: 'APPROVED', label: 'Approved' },
  { value: 'REJECTED', label: 'Rejected' },
  { value: 'EXPIRED', label: 'Expired' },
  { value: 'ALL', label: 'All' },
];

const BUTLER_ID = 2;

function filterOf(search: string): StatusFilter {
  const value = new URLSearchParams(search).get('status')?.toUpperCase();
  return FILTERS.find((f) => f.value === value)?.value ?? 'PENDING';
}

export default function Approvals() {
  const [, navigate] = useLocation();
  const status = filterOf(useSearch());
  const list = useAuthRequests(status);
  const person = usePeople((list.items ?? []).flatMap((r) => (r.decided_by === null ? [r.requester_id] : [r.requester_id, r.decided_by])));

  return (
    <div className="approvals">
      <PageHeader title="Approvals" />
      <p className="approvals-intro">Butler asks before it sends an agent a command. Approve what you expect; reject anything you did not ask for.</p>
      <div className="approvals-filters" role="group" aria-label="Show requests">
        {FILTERS.map((f) => (
          <Button
            key={f.value}
            className="btn-small"
            variant={f.value === status ? 'primary' : 'secondary'}
            aria-pressed={f.value === status}
            onClick={() => navigate(`/approvals?status=${f.value.toLowerCase()}`)}
          >
            {f.label}
          </Button>
        ))}
      </div>
      <ErrorNote error={list.error} retry={list.reload} />
      {!list.items && !list.error ? <Loading what="requests" /> : null}
      {list.items && list.items.length === 0 ? <Empty>{emptyText(status)}</Empty> : null}
      {list.items && list.items.length > 0 ? (
        <ul className="approvals-list" aria-label="Authorization requests">
          {list.items.map((r) => (
            <li key={r.action_id}>
              <RequestCard request={r} person={person} />
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorNote error={list.moreError} retry={list.loadMore} />
      {list.hasMore ? (
        <div className="approvals-more">
          <Button busy={list.loadingMore} onClick={list.loadMore}>
            Load more
          </Button>
        </div>
      ) : null}
    </div>
  );
}

function emptyText(status: StatusFilter): string {
  switch (status) {
    case 'PENDING':
      return 'Nothing is waiting for your answer. When Butler wants to send an agent a command for you, it asks here and in your chat with Butler.';
    case 'ALL':
      return 'Butler has not asked for any approval yet. Ask Butler in the chat to have an agent do something.';
    default:
      return `No ${status.toLowerCase()} requests.`;
  }
}

function RequestCard({ request: r, person }: { request: AuthorizationView; person: (id: number | null) => string }) {
  const { session } = useHub();
  const user = useStore(session.current)!.user;
  const status = useAuthStatus(r.action_id, r.status);
  const decision = useDecision(r.action_id);
  const mayAnswer = user.role === 'ADMIN' || r.approver_id === user.id;
  return (
    <article className="card approval" data-testid="approval" data-status={status} data-action={r.action_id}>
      <div className="approval-head">
        <h2>
          {status !== 'PENDING' ? (
            <span className="approval-outcome" data-testid="approval-title">
              {decisionTitle(status, decision ?? (r.decided_at ? { by: r.decided_by, at: r.decided_at } : undefined), person)}:{' '}
            </span>
          ) : null}
          <span className="approval-agent">{r.target_agent_name}</span>
          <span className="muted"> · asked by {person(r.requester_id)}</span>
        </h2>
        <StatusBadge status={status} />
      </div>
      <pre className="auth-command">
        <code>{r.command}</code>
      </pre>
      {r.reason ? <p className="approval-reason">Reason: {r.reason}</p> : null}
      <p className="approval-meta">
        Asked <Time iso={r.created_at} />
        {status === 'PENDING' ? (
          <>
            {' '}
            · expires <Time iso={r.expires_at} />
          </>
        ) : r.decided_at && status === r.status ? (
          <>
            {' '}
            · {status.toLowerCase()} <Time iso={r.decided_at} />
            {r.decided_by !== null ? ` by ${person(r.decided_by)}` : ''}
          </>
        ) : null}
        {r.requester_id === user.id && r.conversation_id !== null ? (
          <>
            {' '}
            · <Link href={`/chat/${BUTLER_ID}/${r.conversation_id}`}>Open the conversation</Link>
          </>
        ) : null}
      </p>
      {status !== 'PENDING' ? <DecisionNote note={decision?.note !== undefined ? decision.note : r.decision_note} /> : null}
      {status === 'PENDING' ? (
        mayAnswer ? (
          <AuthActions actionId={r.action_id} agentName={r.target_agent_name} />
        ) : (
          <p className="muted">Waiting for the user it was sent to.</p>
        )
      ) : null}
    </article>
  );
}
