// How fresh the view is ("updated 3 s ago", ticking), and the pause and refresh buttons.
import { useEffect, useState } from 'react';
import { Badge, Button } from '../../components/ui';

interface Props {
  updatedAt: number | undefined;
  busy: boolean;
  paused: boolean;
  hidden: boolean;
  intervalMs: number;
  onPause(paused: boolean): void;
  onRefresh(): void;
}

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

function sinceText(updatedAt: number | undefined, now: number): string {
  if (updatedAt === undefined) return 'not read yet';
  const seconds = Math.max(0, Math.round((now - updatedAt) / 1000));
  if (seconds < 60) return `updated ${seconds} s ago`;
  return `updated ${Math.floor(seconds / 60)} min ${seconds % 60} s ago`;
}

export function RefreshControls({ updatedAt, busy, paused, hidden, intervalMs, onPause, onRefresh }: Props) {
  const now = useNow(1000);
  return (
    <div className="ac-refresh">
      <span className="ac-refresh-age" data-testid="updated-ago" title={updatedAt ? new Date(updatedAt).toLocaleTimeString() : undefined}>
        {busy ? <span className="spinner" aria-hidden /> : null}
        {sinceText(updatedAt, now)}
      </span>
      {paused ? (
        <Badge tone="warn">paused</Badge>
      ) : hidden ? (
        <Badge>paused while hidden</Badge>
      ) : (
        <span className="muted ac-refresh-every">every {intervalMs / 1000} s</span>
      )}
      <Button className="btn-small" aria-pressed={paused} onClick={() => onPause(!paused)}>
        {paused ? 'Resume' : 'Pause'}
      </Button>
      <Button className="btn-small" onClick={onRefresh} disabled={busy}>
        Refresh now
      </Button>
    </div>
  );
}
