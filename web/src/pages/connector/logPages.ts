// The connector log as the page holds it: pages newest first, read by cursor. A refresh reads the
// newest page again and puts what is new on top of what was loaded, so "load older" keeps its place.
import type { ConnectorLogView } from '@hub/client';

export interface LogList {
  items: ConnectorLogView[];
  /** Where "load older" continues; "" once the oldest entry is loaded. */
  cursor: string;
}

/** Appends an older page (a repeat of an entry already shown is dropped). */
export function appendOlder(list: LogList, page: LogList): LogList {
  const seen = new Set(list.items.map((e) => e.id));
  return { items: [...list.items, ...page.items.filter((e) => !seen.has(e.id))], cursor: page.cursor };
}

/**
 * Merges a fresh newest page into what is loaded. When the page reaches back to the newest entry
 * held, the rest of the list stays; when more was written than a page holds, the page replaces the
 * list, since there would be a gap between them.
 */
export function mergeNewest(list: LogList, page: LogList): LogList {
  const top = list.items[0];
  if (!top) return page;
  const overlap = page.items.findIndex((e) => e.id === top.id);
  if (overlap === -1) {
    // Nothing newer was written if the page is entirely older than what is held (or empty).
    const newest = page.items[0];
    if (!newest || BigInt(newest.id) < BigInt(top.id)) return list;
    return page;
  }
  return { items: [...page.items.slice(0, overlap), ...list.items], cursor: list.cursor };
}
