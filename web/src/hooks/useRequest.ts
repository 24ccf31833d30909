// One REST read for a view: its data, its error as a value (shown, never a blank page), and reload.
// A failed read is read again when the live socket reconnects: the hub is back, so is the view.
import { useCallback, useContext, useEffect, useRef, useState } from 'react';
import { HubContext } from '../app/context';

export interface RequestState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): Promise<void>;
}

export function useRequest<T>(fetcher: () => Promise<T>, deps: readonly unknown[]): RequestState<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(fetcher, deps);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await run();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (err) {
      if (mine === generation.current) setError(err);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [run]);

  useEffect(() => {
    void reload();
    // An answer arriving after unmount (or after the inputs changed) is dropped.
    const counter = generation;
    return () => void ++counter.current;
  }, [reload]);

  // Outside a signed-in session there is no socket to follow.
  const live = useContext(HubContext)?.live;
  const failed = error !== undefined;
  useEffect(() => {
    if (!live || !failed) return;
    return live.connections.subscribe(() => void reload());
  }, [live, failed, reload]);

  return { data, error, loading, reload };
}
