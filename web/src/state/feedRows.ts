// The feed's rows as plain data: one shape for a live telemetry frame and a stored message from
// `GET /api/messages`, and the merge that keeps them newest first without duplicates (a history
// page and the live frames overlap). Pure, so it is tested without a browser.
import { isTelemetryType, type FrameOf, type MessageView, type ServerFrame, type TelemetryType } from '@hub/client';

export interface FeedRow {
  id: number;
  type: TelemetryType;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  target_id?: number;
  timestamp: string;
  /** The level the hub stores (a SYSTEM_LOG's own, INFO for reports), which `level=` filters on. */
  level: string | null;
  /** The one searchable line the hub indexes. */
  content: string;
  payload: unknown;
  /** Lower-cased sender, type and content, for the free-text filter. */
  haystack: string;
}

const MAX_CONTENT = 4096;

export function isFeedFrame(frame: ServerFrame): frame is FrameOf<TelemetryType> {
  return isTelemetryType(frame.type);
}

/** Level and content as the hub derives them for storage (`summarise`), so live and stored rows agree. */
export function summarise(type: TelemetryType, payload: unknown): { level: string | null; content: string } {
  if (typeof payload === 'string') return { level: 'INFO', content: payload };
  const record = (payload ?? {}) as Record<string, unknown>;
  const level = type === 'SYSTEM_LOG' && typeof record['level'] === 'string' ? record['level'] : 'INFO';
  const content = typeof record['content'] === 'string' ? record['content'] : JSON.stringify(payload).slice(0, MAX_CONTENT);
  return { level, content };
}

function row(fields: Omit<FeedRow, 'haystack'>): FeedRow {
  return { ...fields, haystack: `${fields.sender_name}\n${fields.type}\n${fields.content}`.toLowerCase() };
}

/** A live frame as a row; undefined for other types, and for a frame without a stored id (it cannot be deduplicated). */
export function rowOfFrame(frame: ServerFrame): FeedRow | undefined {
  if (!isFeedFrame(frame) || frame.id === undefined) return undefined;
  const { level, content } = summarise(frame.type, frame.payload);
  return row({
    id: frame.id,
    type: frame.type,
    sender_id: frame.sender_id,
    sender_name: frame.sender_name,
    sender_role: frame.sender_role,
    ...(frame.target_id !== undefined ? { target_id: frame.target_id } : {}),
    timestamp: frame.timestamp,
    level,
    content,
    payload: frame.payload,
  });
}

/** A stored message as a row; undefined for a type the feed does not show. */
export function rowOfMessage(message: MessageView): FeedRow | undefined {
  if (!isTelemetryType(message.type)) return undefined;
  return row({
    id: message.id,
    type: message.type,
    sender_id: message.sender_id,
    sender_name: message.sender_name,
    sender_role: message.sender_role,
    ...(message.target_id !== undefined ? { target_id: message.target_id } : {}),
    timestamp: message.timestamp,
    level: message.level,
    content: message.content,
    payload: message.payload,
  });
}

const newestFirst = (a: FeedRow, b: FeedRow) => b.id - a.id;

/**
 * `existing` (newest first, no duplicates) with `incoming` (any order, may repeat) merged in: newest
 * first, one row per id (the one already held wins), at most `cap` rows, the oldest dropped.
 * Returns `existing` itself when nothing new came.
 */
export function mergeRows(existing: readonly FeedRow[], incoming: readonly FeedRow[], cap: number): readonly FeedRow[] {
  if (incoming.length === 0) return existing;
  const fresh = [...incoming].sort(newestFirst);
  // The usual case: live rows, all newer than anything held.
  const newest = existing[0]?.id ?? 0;
  if (fresh[fresh.length - 1]!.id > newest) {
    const out = dedupeSorted(fresh);
    for (const r of existing) {
      if (out.length >= cap) break;
      out.push(r);
    }
    return out.length > cap ? out.slice(0, cap) : out;
  }
  const out: FeedRow[] = [];
  let i = 0;
  let j = 0;
  let added = false;
  while (out.length < cap && (i < existing.length || j < fresh.length)) {
    const a = existing[i];
    const b = fresh[j];
    const last = out[out.length - 1];
    if (b && last && b.id === last.id) {
      j++;
      continue;
    }
    if (a && (!b || a.id >= b.id)) {
      if (b && a.id === b.id) j++;
      out.push(a);
      i++;
    } else {
      out.push(b!);
      added = true;
      j++;
    }
  }
  return added || out.length !== existing.length ? out : existing;
}

function dedupeSorted(rows: FeedRow[]): FeedRow[] {
  const out: FeedRow[] = [];
  for (const r of rows) if (out[out.length - 1]?.id !== r.id) out.push(r);
  return out;
}

/** How many rows (newest first) have an id above `id`: the index of the first one at or below it. */
export function countNewerThan(rows: readonly FeedRow[], id: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.id > id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
