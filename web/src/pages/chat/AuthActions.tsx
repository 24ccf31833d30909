// Approve / Reject for one of Butler's authorization requests, with an optional note saying why
// (stored with the decision and shown wherever the request is), shared by the chat card and the
// Approvals list. The outcome shows at once (the approvals store records it) and again when the
// hub's AUTH_STATUS_UPDATE arrives; a refusal (decided elsewhere, expired) is a toast.
import { useId, useState } from 'react';
import { useHub } from '../../app/context';
import { Badge, Button, toneOf } from '../../components/ui';
import { useStore } from '../../lib/store';
import type { Decision } from '../../state/approvals';

export { decisionTitle } from './decision';
import './Auth.css';

/** The newest status known: a live outcome beats the one the row or frame carried. */
export function useAuthStatus(actionId: string, status: string): string {
  const decided = useStore(useHub().approvals.state).decided.get(actionId);
  return decided ?? status;
}

/** Who decided and when, once known. */
export function useDecision(actionId: string): Decision | undefined {
  return useStore(useHub().approvals.state).decisions.get(actionId);
}

/** The hub keeps up to this many characters of a decision's note. */
const NOTE_MAX = 2000;

/** The note left with a decision, if any. */
export function DecisionNote({ note }: { note: string | null | undefined }) {
  if (!note) return null;
  return (
    <p className="auth-note" data-testid="decision-note">
      Note: {note}
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={toneOf(status)} title={`Status: ${status.toLowerCase()}`}>
      <span data-testid="auth-status">{status}</span>
    </Badge>
  );
}

export function AuthActions({ actionId, agentName }: { actionId: string; agentName: string }) {
  const { approvals, toasts } = useHub();
  const [busy, setBusy] = useState<'approve' | 'reject'>();
  const [note, setNote] = useState('');
  const noteId = useId();

  async function decide(approved: boolean) {
    setBusy(approved ? 'approve' : 'reject');
    try {
      const answer = await approvals.respond(actionId, approved, note.trim() || undefined);
      toasts.success(`${approved ? 'Approved' : 'Rejected'}: ${answer.result.replace(/^(approved|rejected): /, '')}`);
    } catch (err) {
      toasts.error(err, `Could not ${approved ? 'approve' : 'reject'} the command for ${agentName}`);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <div className="auth-actions">
      <label htmlFor={noteId} className="sr-only">
        Note for the command for {agentName} (optional)
      </label>
      <input
        id={noteId}
        className="auth-note-input"
        type="text"
        placeholder="Note (optional): why"
        maxLength={NOTE_MAX}
        value={note}
        disabled={busy !== undefined}
        onChange={(e) => setNote(e.target.value)}
      />
      <Button variant="primary" busy={busy === 'approve'} disabled={busy !== undefined} onClick={() => void decide(true)}>
        Approve
      </Button>
      <Button variant="danger" busy={busy === 'reject'} disabled={busy !== undefined} onClick={() => void decide(false)}>
        Reject
      </Button>
    </div>
  );
}
