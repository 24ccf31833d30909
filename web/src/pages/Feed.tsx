// Live feed: agents' logs and reports (SYSTEM_LOG, WEATHER_UPDATE, CODE_REVIEW, SECURITY_ALERT) as
// they arrive, with older history paged in from the hub. The rows are collected by the session's
// feed store (state/feed.ts) even while this page is closed; this page filters and shows them.
import { LogLevels, TelemetryTypes } from '@hub/client';
import { useCallback, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'wouter';
import { useHub } from '../app/context';
import { Button, PageHeader } from '../components/ui';
import { useStore } from '../lib/store';
import { MAX_ROWS } from '../state/feed';
import { FeedCharts } from './feed/FeedCharts';
import { FeedList } from './feed/FeedList';
import { applyFilters, filtersFromSearch, isFiltered, NO_FILTERS, searchOfFilters, type FeedFilters } from './feed/filters';
import { TYPE_LABELS } from './feed/telemetry';
import './Feed.css';

export default function Feed() {
  const { feed, agents } = useHub();
  const { rows, history, historyError, hubTotal, hubTotalCapped } = useStore(feed.state);
  const known = useStore(agents.state).byId;
  const [params, setParams] = useSearchParams();
  const fromUrl = useMemo(() => filtersFromSearch(params), [params]);
  // The text box is local so typing stays instant; the address follows it.
  const [text, setText] = useState(fromUrl.text);
  const query = useDeferredValue(text);
  const filters = useMemo<FeedFilters>(() => ({ ...fromUrl, text: query }), [fromUrl, query]);
  const matching = useMemo(() => applyFilters(rows, filters), [rows, filters]);

  const setFilters = useCallback(
    (next: Partial<FeedFilters>) =>
      setParams(searchOfFilters({ ...filtersFromSearch(new URLSearchParams(window.location.search)), ...next }), { replace: true }),
    [setParams],
  );
  useEffect(() => {
    if (fromUrl.text !== query) setFilters({ text: query });
  }, [query, fromUrl.text, setFilters]);

  const clear = useCallback(() => {
    setText('');
    setParams(searchOfFilters(NO_FILTERS), { replace: true });
  }, [setParams]);
  const loadOlder = useCallback(() => void feed.loadOlder(), [feed]);

  // Everyone who can send telemetry, and whoever already did (an admin, a removed agent).
  const senders = useMemo(() => {
    const names = new Set<string>();
    for (const user of known.values()) names.add(user.username);
    for (const row of rows) names.add(row.sender_name);
    if (fromUrl.agent) names.add(fromUrl.agent);
    return [...names].sort((a, b) => a.localeCompare(b));
  }, [known, rows, fromUrl.agent]);

  // The report types the picked sender has sent (the readings chart opens on one of them).
  const senderTypes = useMemo(
    () => new Set(fromUrl.agent ? rows.filter((r) => r.sender_name === fromUrl.agent).map((r) => r.type) : []),
    [rows, fromUrl.agent],
  );
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filtered = isFiltered(filters);
  const filterKey = `${fromUrl.agent}|${fromUrl.level}|${fromUrl.type}|${query.trim()}`;

  return (
    <div className="feed-page">
      <PageHeader title="Live feed">
        <span className="muted" data-testid="feed-loaded">
          {rows.length.toLocaleString()} loaded
          {hubTotal !== undefined ? ` of ${Math.max(hubTotal, rows.length).toLocaleString()}${hubTotalCapped ? '+' : ''} on the hub` : ''}
        </span>
      </PageHeader>
      {/* On a phone the filters fold away behind one button; on a laptop they are always shown. */}
      <button
        type="button"
        className="btn btn-small feed-filters-toggle"
        aria-expanded={filtersOpen}
        aria-controls="feed-filters"
        onClick={() => setFiltersOpen((o) => !o)}
      >
        Filters{filtered ? ' (on)' : ''}
      </button>
      <form
        id="feed-filters"
        className={`feed-filters${filtersOpen ? ' open' : ''}`}
        role="search"
        aria-label="Filter the feed"
        onSubmit={(e) => e.preventDefault()}
      >
        <label>
          Sender
          <select value={fromUrl.agent} onChange={(e) => setFilters({ agent: e.target.value })}>
            <option value="">Everyone</option>
            {senders.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Level
          <select value={fromUrl.level} onChange={(e) => setFilters({ level: e.target.value as FeedFilters['level'] })}>
            <option value="">Any level</option>
            {LogLevels.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={fromUrl.type} onChange={(e) => setFilters({ type: e.target.value as FeedFilters['type'] })}>
            <option value="">All types</option>
            {TelemetryTypes.map((type) => (
              <option key={type} value={type}>
                {TYPE_LABELS[type]} ({type})
              </option>
            ))}
          </select>
        </label>
        <label className="feed-search">
          Search
          <input type="search" value={text} placeholder="Text, sender or type" onChange={(e) => setText(e.target.value)} />
        </label>
        <Button onClick={clear} disabled={!filtered && !text}>
          Clear
        </Button>
      </form>
      <FeedCharts filters={filters} senderTypes={senderTypes} />
      <FeedList
        rows={matching}
        history={history}
        historyError={historyError}
        filtered={filtered}
        filterKey={filterKey}
        loadOlder={loadOlder}
        clearFilters={clear}
        maxRows={MAX_ROWS}
      />
    </div>
  );
}
