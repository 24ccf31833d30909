// The feed's rows, newest on top, virtualised (only the rows in view are in the DOM, so 20,000 rows
// scroll smoothly). Following, new rows appear on top; once the reader scrolls down (or pauses), the
// list holds still and a "N new" button counts what came since. Reaching the bottom pages in older
// history; a filter that matches little pages in a few pages at most before asking.
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Badge, Button, ErrorNote } from '../../components/ui';
import type { HistoryStatus } from '../../state/feed';
import { countNewerThan, type FeedRow } from '../../state/feedRows';
import { RowDetail } from './RowDetail';
import { describeRow, feedTime, TYPE_LABELS } from './telemetry';

/** Pages loaded one after another without the reader scrolling (a filter matching little). */
const AUTO_PAGES = 5;
/** Rows from the end at which the next older page is asked for. */
const PREFETCH_ROWS = 15;

interface Pause {
  /** Rows newer than this id are held back. */
  at: number;
  /** A pause by scrolling ends by scrolling back to the top; the reader's own pause by Follow. */
  by: 'scroll' | 'user';
}

export interface FeedListProps {
  /** The rows that pass the filters, newest first. */
  rows: readonly FeedRow[];
  history: HistoryStatus;
  historyError: unknown;
  filtered: boolean;
  /** Changes when the filters do: the list goes back to the top and follows. */
  filterKey: string;
  loadOlder(): void;
  clearFilters(): void;
  maxRows: number;
}

export function FeedList({ rows, history, historyError, filtered, filterKey, loadOlder, clearFilters, maxRows }: FeedListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [pause, setPause] = useState<Pause | null>(null);
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(() => new Set());
  const budget = useRef(AUTO_PAGES);

  const held = pause ? countNewerThan(rows, pause.at) : 0;
  const shown = useMemo(() => (held > 0 ? rows.slice(held) : rows), [rows, held]);
  const newest = useRef(0);
  newest.current = shown[0]?.id ?? 0;

  const virtualizer = useVirtualizer({
    count: shown.length + 1,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 38,
    overscan: 10,
    // By id, so measured heights stay with their rows when newer ones are put on top.
    getItemKey: (index) => shown[index]?.id ?? 'end',
  });
  const items = virtualizer.getVirtualItems();
  const nearEnd = (items.at(-1)?.index ?? 0) >= shown.length - PREFETCH_ROWS;
  const canLoad = history === 'idle' || history === 'more';

  useEffect(() => {
    if (!nearEnd || !canLoad || budget.current <= 0) return;
    budget.current--;
    loadOlder();
  }, [nearEnd, canLoad, shown.length, loadOlder]);

  function follow() {
    virtualizer.scrollToOffset(0);
    setPause(null);
  }

  // New filters: back to the top, following, with a fresh paging budget.
  useLayoutEffect(() => {
    budget.current = AUTO_PAGES;
    scrollRef.current?.scrollTo({ top: 0 });
    setPause(null);
  }, [filterKey]);

  function onScroll() {
    const top = (scrollRef.current?.scrollTop ?? 0) <= 2;
    budget.current = AUTO_PAGES;
    setPause((prev) => {
      if (!top && !prev) return { at: newest.current, by: 'scroll' };
      if (top && prev?.by === 'scroll') return null;
      return prev;
    });
  }

  // Stable, so rows that did not change are not rendered again.
  const toggle = useCallback((id: number) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }, []);

  return (
    <div className="feed-list">
      <div className="feed-bar">
        <span data-testid="feed-count" aria-live="off">
          {rows.length.toLocaleString()} {rows.length === 1 ? 'message' : 'messages'}
          {filtered ? ' match' : ''}
        </span>
        {pause ? (
          <Badge tone="warn" title={pause.by === 'scroll' ? 'New messages wait above while you read; scroll to the top to follow again.' : undefined}>
            {pause.by === 'user' ? 'Paused' : 'Paused while you read'}
          </Badge>
        ) : (
          <Badge tone="ok">Following</Badge>
        )}
        <Button className="btn-small" aria-pressed={pause?.by === 'user'} onClick={() => (pause ? follow() : setPause({ at: newest.current, by: 'user' }))}>
          {pause ? 'Follow live' : 'Pause'}
        </Button>
      </div>
      <div className="feed-viewport">
        {held > 0 ? (
          <button type="button" className="feed-new" onClick={follow} data-testid="feed-new">
            ↑ {held.toLocaleString()} new
          </button>
        ) : null}
        <div ref={scrollRef} className="feed-scroll" onScroll={onScroll} tabIndex={0} aria-label="Messages, newest first" data-testid="feed-scroll">
          <div role="list" className="feed-rows" style={{ height: virtualizer.getTotalSize() }}>
            {items.map((item) => {
              const row = shown[item.index];
              return (
                <div
                  key={item.key}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  className="feed-slot"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  {row ? (
                    <Row row={row} open={expanded.has(row.id)} toggle={toggle} />
                  ) : (
                    <End
                      count={shown.length}
                      history={history}
                      error={historyError}
                      filtered={filtered}
                      load={() => ((budget.current = AUTO_PAGES), loadOlder())}
                      clear={clearFilters}
                      maxRows={maxRows}
                    />
                  )}
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}

const Row = memo(function Row({ row, open, toggle }: { row: FeedRow; open: boolean; toggle(id: number): void }) {
  const look = describeRow(row);
  return (
    <div role="listitem" className={`feed-row tone-${look.tone}${open ? ' open' : ''}`} data-testid="feed-row" data-id={row.id}>
      <button type="button" className="feed-main" aria-expanded={open} onClick={() => toggle(row.id)}>
        <time className="feed-time" dateTime={row.timestamp} title={new Date(row.timestamp).toLocaleString()}>
          {feedTime(row.timestamp)}
        </time>
        <Badge tone={look.tone}>{look.badge}</Badge>
        <span className="feed-type">{TYPE_LABELS[row.type]}</span>
        <span className="feed-sender">{row.sender_name}</span>
        <span className="feed-summary">{look.summary}</span>
      </button>
      {open ? <RowDetail row={row} /> : null}
    </div>
  );
});

function End({
  count,
  history,
  error,
  filtered,
  load,
  clear,
  maxRows,
}: {
  count: number;
  history: HistoryStatus;
  error: unknown;
  filtered: boolean;
  load(): void;
  clear(): void;
  maxRows: number;
}) {
  let body;
  if (history === 'loading' || history === 'idle') {
    body = (
      <span className="loading" role="status">
        <span className="spinner" aria-hidden /> Loading {count === 0 ? 'messages' : 'older messages'}…
      </span>
    );
  } else if (history === 'error') {
    body = <ErrorNote error={error} retry={load} />;
  } else if (history === 'full') {
    body = <span className="muted">The feed keeps the newest {maxRows.toLocaleString()} messages; older ones stay on the hub.</span>;
  } else if (history === 'more') {
    body = (
      <>
        {filtered ? <span className="muted">Looking further back may find more matches.</span> : null}
        <Button className="btn-small" onClick={load}>
          Load older messages
        </Button>
      </>
    );
  } else if (count === 0) {
    body = filtered ? (
      <>
        <span className="muted">Nothing in the feed matches these filters.</span>
        <Button className="btn-small" onClick={clear}>
          Clear filters
        </Button>
      </>
    ) : (
      <span className="muted">No logs or reports yet. They appear here the moment an agent sends one.</span>
    );
  } else {
    body = <span className="muted">This is the beginning of the history.</span>;
  }
  return (
    <div className="feed-end" data-testid="feed-end" data-history={history}>
      {body}
    </div>
  );
}
