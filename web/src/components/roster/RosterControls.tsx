// The roster's search box, presence filter and pager: what the hub is asked for, never a filter over
// rows already downloaded. Shared by the Overview and the Agents page.
import { useId } from 'react';
import type { PresenceFilter } from '../../hooks/useRoster';
import { Button } from '../ui';
import './roster.css';

export function RosterSearch({
  q,
  status,
  onQ,
  onStatus,
}: {
  q: string;
  status: PresenceFilter;
  onQ(q: string): void;
  onStatus(status: PresenceFilter): void;
}) {
  const search = useId();
  const filter = useId();
  return (
    <div className="roster-search">
      <label htmlFor={search} className="sr-only">
        Search agents by name
      </label>
      <input id={search} type="search" placeholder="Search agents by name" value={q} maxLength={64} onChange={(e) => onQ(e.target.value)} />
      <label htmlFor={filter} className="sr-only">
        Presence
      </label>
      <select id={filter} value={status} onChange={(e) => onStatus(e.target.value as PresenceFilter)}>
        <option value="">All</option>
        <option value="ONLINE">Online</option>
        <option value="OFFLINE">Offline</option>
      </select>
    </div>
  );
}

export function Pager({ page, limit, total, onPage, loading }: { page: number; limit: number; total: number; onPage(page: number): void; loading: boolean }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (total <= limit && page === 1) return null;
  const first = (page - 1) * limit + 1;
  const last = Math.min(total, page * limit);
  return (
    <nav className="roster-pager" aria-label="Pages of agents">
      <Button className="btn-small" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span className="muted" data-testid="roster-range" aria-live="polite" aria-busy={loading}>
        {total === 0 ? 'none' : `${first.toLocaleString('en-US')}–${last.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`} · page {page} of{' '}
        {pages.toLocaleString('en-US')}
      </span>
      <Button className="btn-small" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </nav>
  );
}
