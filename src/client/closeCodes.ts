// What the client does when the hub closes its socket: reconnect or stop, and the one line that says
// why. The codes are the hub's (README "Close codes"); anything else is treated as a dropped line.
import { CloseCode } from '../protocol/errors.js';

export type Verdict = 'reconnect' | 'stop';

export interface CloseDecision {
  verdict: Verdict;
  /** One readable line for a person: what happened and what the client does about it. */
  why: string;
}

const REASONS: Record<number, string> = {
  [CloseCode.normal]: 'the hub closed the connection',
  [CloseCode.goingAway]: 'the hub is shutting down',
  [CloseCode.policyViolation]: 'the hub refused what this client sent',
  [CloseCode.tooLarge]: 'a frame was too large for the hub',
  [CloseCode.internal]: 'the hub failed to resume this connection',
  [CloseCode.unauthorized]: 'the credential stopped working (token rotated, agent or user deleted, or hub reset)',
  [CloseCode.tokenExpired]: 'the session expired',
  [CloseCode.forbidden]: 'the hub forbids this connection',
  [CloseCode.notFound]: 'the hub no longer knows this user',
  [CloseCode.roleChanged]: "the user's role changed",
  [CloseCode.rateLimited]: 'too many frames past the rate limit',
  [CloseCode.invalidFrames]: 'too many invalid frames',
  [CloseCode.slowConsumer]: 'this client read too slowly',
  1006: 'the connection dropped',
};

/** Codes after which reconnecting with the same credential cannot succeed. */
const NEEDS_NEW_CREDENTIAL = new Set<number>([CloseCode.unauthorized, CloseCode.forbidden, CloseCode.notFound]);

/**
 * `refreshable`: the client gets its token from a function, so an expired session can be renewed by
 * asking again; with a fixed token, 4002 stops too.
 */
export function decideOnClose(code: number, reason: string, refreshable: boolean): CloseDecision {
  const known = REASONS[code] ?? 'the connection closed';
  const detail = reason && !known.includes(reason) ? `: ${reason}` : '';
  const stop = NEEDS_NEW_CREDENTIAL.has(code) || (code === CloseCode.tokenExpired && !refreshable);
  const next = stop ? (code === CloseCode.tokenExpired ? 'stopping: log in again' : 'stopping: it needs a new credential') : 'reconnecting';
  return { verdict: stop ? 'stop' : 'reconnect', why: `closed by the hub (${code}, ${known}${detail}); ${next}` };
}

/** Exponential backoff with full jitter: a random wait in [0, min(max, initial·2^attempt)], at least `floorMs`. */
export function backoffDelay(attempt: number, options: { initialMs: number; maxMs: number; floorMs?: number }, random: () => number): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30));
  return Math.max(options.floorMs ?? 0, Math.round(ceiling * random()));
}
