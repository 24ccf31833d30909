// A REST read repeated on a timer while the page is visible: paused when the tab is hidden (and
// read again as soon as it is back, if due) or when the user pauses it. A failed read keeps the
// last good data beside the error, so a blip does not blank the view.
import { useCallback, useEffect, useRef, useState } from 'react';

export interface AutoRefresh<T> {
  data: T | undefined;
  error: unknown;
  /** Epoch ms of the last good read. */
  updatedAt: number | undefined;
  /** A read is in flight. */
  busy: boolean;
  /** The tab is hidden, so nothing is read. */
  hidden: boolean;
  /** Reads now, paused or not. */
  refresh(): void;
}

function useDocumentHidden(): boolean {
  const [hidden, setHidden] = useState(() => document.hidden);
  useEffect(() => {
    const update = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return hidden;
}

export function useAutoRefresh<T>(fetcher: () => Promise<T>, deps: readonly unknown[], options: { intervalMs: number; paused: boolean }): AutoRefresh<T> {
  const { intervalMs, paused } = options;
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [updatedAt, setUpdatedAt] = useState<number>();
  const [busy, setBusy] = useState(false);
  const hidden = useDocumentHidden();
  const generation = useRef(0);
  /** When the last read started (0: never, for these inputs). */
  const lastTry = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(fetcher, deps);

  const load = useCallback(async () => {
    const mine = ++generation.current;
    lastTry.current = Date.now();
    setBusy(true);
    try {
      const value = await run();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
      setUpdatedAt(Date.now());
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setBusy(false);
    }
  }, [run]);

  // New inputs (another actor) start from nothing; an answer for the old ones is dropped.
  useEffect(() => {
    setData(undefined);
    setError(undefined);
    setUpdatedAt(undefined);
    lastTry.current = 0;
    const counter = generation;
    return () => void ++counter.current;
  }, [load]);

  useEffect(() => {
    if (paused || hidden) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const tick = async () => {
      await load();
      if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
    };
    // Coming back (unpaused, visible again) reads at once if a read is due, else when it is.
    timer = setTimeout(() => void tick(), Math.max(0, lastTry.current + intervalMs - Date.now()));
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [load, paused, hidden, intervalMs]);

  const refresh = useCallback(() => void load(), [load]);
  return { data, error, updatedAt, busy, hidden, refresh };
}
