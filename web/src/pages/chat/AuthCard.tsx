// Butler's authorization request inside the chat: what it wants to run on which agent and why, with
// Approve / Reject while it waits and the outcome after.
import type { AuthCard as Card } from '../../state/chat';
import { AuthActions, StatusBadge, useAuthStatus } from './AuthActions';

export function AuthCard({ card }: { card: Card }) {
  const status = useAuthStatus(card.action_id, card.status);
  const agent = card.target_agent_name ?? (card.target_agent_id !== undefined ? `agent #${card.target_agent_id}` : 'an agent');
  return (
    <div className="auth-card" data-testid="auth-card" data-status={status} data-action={card.action_id}>
      <div className="auth-card-head">
        <strong>Approval needed</strong>
        <StatusBadge status={status} />
      </div>
      <p className="auth-card-line">
        Butler wants to send this command to <strong>{agent}</strong>:
      </p>
      <pre className="auth-command">
        <code>{card.command ?? '(no command given)'}</code>
      </pre>
      {card.reason ? <p className="auth-card-reason">Reason: {card.reason}</p> : null}
      {status === 'PENDING' ? <AuthActions actionId={card.action_id} agentName={agent} /> : null}
    </div>
  );
}
