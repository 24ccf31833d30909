// Honesty about what is live: while the socket is away, what the page shows is as of the moment it
// went (greyed, "as of 19:24"), and it is read again when the socket is back.
import type { ReactNode } from 'react';
import { useHub } from '../app/context';
import { useStore } from '../lib/store';

/** Epoch ms since when the live data is stale, or undefined while the socket is open. */
export function useStaleSince(): number | undefined {
  const { live } = useHub();
  return useStore(live.staleSince);
}

export const clockTime = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Wraps live content: greyed with an "as of" note while stale. */
export function Fresh({ children, what }: { children: ReactNode; what: string }) {
  const since = useStaleSince();
  if (since === undefined) return <>{children}</>;
  return (
    <div className="stale" data-testid="stale" aria-describedby={undefined}>
      <p className="stale-note" role="status">
        {what} as of {clockTime(since)} — reconnecting…
      </p>
      <div className="stale-body">{children}</div>
    </div>
  );
}

/** Just the note, for places where the content itself changes wording (a badge, "now"). */
export function AsOf({ since }: { since: number }) {
  return <span className="muted as-of">as of {clockTime(since)}</span>;
}
