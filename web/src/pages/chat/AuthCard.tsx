// Butler's authorization request inside the chat: what it wants to run on which agent and why, with
// Approve / Reject while it waits; after, the outcome in its title with who decided and when, and,
// once approved, that the command went to the agent and how long its answer has been awaited.
import { useEffect, useState } from 'react';
import type { AuthCard as Card } from '../../state/chat';
import { useShell } from '../../app/context';
import { usePeople } from '../approvals/usePeople';
import { AuthActions, DecisionNote, decisionTitle, StatusBadge, useAuthStatus, useDecision } from './AuthActions';

export function AuthCard({ card, repliedAt }: { card: Card; repliedAt?: string }) {
  const status = useAuthStatus(card.action_id, card.status);
  const decision = useDecision(card.action_id);
  const person = usePeople(decision?.by != null ? [decision.by] : []);
  const agent = card.target_agent_name ?? (card.target_agent_id !== undefined ? `agent #${card.target_agent_id}` : 'an agent');
  const title = status === 'PENDING' ? 'Approval needed' : decisionTitle(status, decision, person);
  return (
    <div className="auth-card" data-testid="auth-card" data-status={status} data-action={card.action_id}>
      <div className="auth-card-head">
        <strong data-testid="auth-card-title">{title}</strong>
        <StatusBadge status={status} />
      </div>
      <p className="auth-card-line">
        Butler {status === 'PENDING' ? 'wants to send' : status === 'APPROVED' ? 'sent' : 'asked to send'} this command to <strong>{agent}</strong>:
      </p>
      <pre className="auth-command">
        <code>{card.command ?? '(no command given)'}</code>
      </pre>
      {card.reason ? <p className="auth-card-reason">Reason: {card.reason}</p> : null}
      {status === 'PENDING' ? <AuthActions actionId={card.action_id} agentName={agent} /> : <DecisionNote note={decision?.note} />}
      {status === 'APPROVED' && decision && !(repliedAt !== undefined && Date.parse(repliedAt) > Date.parse(decision.at)) ? (
        <AwaitingAnswer agent={agent} since={decision.at} />
      ) : null}
    </div>
  );
}

/** How long this hub's Butler waits for an agent's answer (read once per page load). */
let replyTimeout: Promise<number | undefined> | undefined;
function useReplyTimeout(): number | undefined {
  const { publicApi } = useShell();
  const [seconds, setSeconds] = useState<number | undefined>();
  useEffect(() => {
    let live = true;
    replyTimeout ??= publicApi.authOptions().then(
      (o) => o.agent_reply_timeout_seconds,
      () => undefined,
    );
    void replyTimeout.then((s) => live && setSeconds(s));
    return () => {
      live = false;
    };
  }, [publicApi]);
  return seconds;
}

const duration = (seconds: number) => (seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`);

/** The agent's answer is relayed by Butler; until it writes again, say so and count the wait. */
function AwaitingAnswer({ agent, since }: { agent: string; since: string }) {
  const timeout = useReplyTimeout();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  const waited = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return (
    <p className="auth-card-waiting" role="status" data-testid="auth-waiting">
      <span className="spinner" aria-hidden /> Waiting for {agent}’s answer, {waited} so far.{' '}
      {timeout === undefined
        ? 'Butler gives an agent a limited time and tells you if it does not answer.'
        : `Butler waits up to ${duration(timeout)} and tells you if it does not answer.`}
    </p>
  );
}
