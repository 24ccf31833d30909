// The feed's filters: what they are, how they read from and write to the address (so a filtered
// feed can be linked, e.g. from an agent on the overview), and the predicate the view applies.
import { isLogLevel, isTelemetryType, type LogLevel, type TelemetryType } from '@hub/client';
import type { FeedRow } from '../../state/feedRows';
import { describeRow } from './telemetry';

export interface FeedFilters {
  /** A sender's username; '' for everyone. */
  agent: string;
  level: LogLevel | '';
  type: TelemetryType | '';
  /** Free text, matched case-insensitively against sender, type and content. */
  text: string;
}

export const NO_FILTERS: FeedFilters = { agent: '', level: '', type: '', text: '' };

export function filtersFromSearch(search: URLSearchParams): FeedFilters {
  const level = search.get('level') ?? '';
  const type = search.get('type') ?? '';
  return {
    agent: search.get('agent') ?? '',
    level: isLogLevel(level) ? level : '',
    type: isTelemetryType(type) ? type : '',
    text: search.get('q') ?? '',
  };
}

export function searchOfFilters(filters: FeedFilters): URLSearchParams {
  const out = new URLSearchParams();
  if (filters.agent) out.set('agent', filters.agent);
  if (filters.level) out.set('level', filters.level);
  if (filters.type) out.set('type', filters.type);
  if (filters.text) out.set('q', filters.text);
  return out;
}

export function isFiltered(filters: FeedFilters): boolean {
  return Boolean(filters.agent || filters.level || filters.type || filters.text.trim());
}

const TONE_LEVEL: Record<string, LogLevel> = { bad: 'ERROR', warn: 'WARNING', ok: 'SUCCESS' };
const readsAs = new WeakMap<FeedRow, LogLevel>();

/**
 * The level a row reads as, which the level filter matches: a log's own; a report's from its
 * severity or verdict, as its badge is coloured (the hub stores every report as INFO, so a critical
 * alert would otherwise never pass "ERROR"). Worked out once per row.
 */
export function levelOf(row: FeedRow): LogLevel {
  if (row.type === 'SYSTEM_LOG') return row.level !== null && isLogLevel(row.level) ? row.level : 'INFO';
  let level = readsAs.get(row);
  if (level === undefined) {
    level = TONE_LEVEL[describeRow(row).tone] ?? 'INFO';
    readsAs.set(row, level);
  }
  return level;
}

export function matcher(filters: FeedFilters): (row: FeedRow) => boolean {
  const text = filters.text.trim().toLowerCase();
  return (row) =>
    (!filters.agent || row.sender_name === filters.agent) &&
    (!filters.level || levelOf(row) === filters.level) &&
    (!filters.type || row.type === filters.type) &&
    (!text || row.haystack.includes(text));
}

/** The rows that pass, newest first; the same array when nothing filters. */
export function applyFilters(rows: readonly FeedRow[], filters: FeedFilters): readonly FeedRow[] {
  return isFiltered(filters) ? rows.filter(matcher(filters)) : rows;
}
