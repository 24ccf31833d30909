// An authorization request's outcome as a card title: what, who and when.
import type { Decision } from '../../state/approvals';

const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const VERBS: Record<string, string> = { APPROVED: 'Approved', REJECTED: 'Rejected', EXPIRED: 'Expired' };

/** "Approved by admin at 19:24", "Expired at 19:30", or just the outcome while who and when are unknown. */
export function decisionTitle(status: string, decision: Decision | undefined, person: (id: number) => string): string {
  const verb = VERBS[status] ?? status.toLowerCase();
  if (!decision) return verb;
  const who = decision.by === null || status === 'EXPIRED' ? '' : ` by ${person(decision.by)}`;
  return `${verb}${who} at ${clock(decision.at)}`;
}
