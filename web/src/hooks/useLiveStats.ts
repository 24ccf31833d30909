// A chart's series from the hub, read again when something it counts may have changed: after every
// (re)connection, when a live frame of interest arrives (at most once per `settleMs`), and on a slow
// timer so buckets move along with time. A failed read keeps the last good data beside the error.
import type { ServerFrame } from '@hub/client';
import { useEffect, useRef, useState } from 'react';
import { useHub } from '../app/context';

export interface LiveStats<T> {
  data: T | undefined;
  error: unknown;
  reload(): void;
}

export interface LiveStatsOptions {
  /** Frames that make the numbers stale (none: only reconnections and the timer). */
  when?: (frame: ServerFrame) => boolean;
  settleMs?: number;
  everyMs?: number;
}

export function useLiveStats<T>(read: () => Promise<T>, deps: readonly unknown[], options: LiveStatsOptions = {}): LiveStats<T> {
  const { live } = useHub();
  const { settleMs = 1000, everyMs = 30_000 } = options;
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [attempt, setAttempt] = useState(0);
  const when = useRef(options.when);
  when.current = options.when;

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    const run = () => {
      timer = undefined;
      const mine = ++generation;
      read().then(
        (value) => {
          if (!cancelled && mine === generation) {
            setData(value);
            setError(undefined);
          }
        },
        (err: unknown) => {
          if (!cancelled && mine === generation) setError(err);
        },
      );
    };
    const soon = () => {
      timer ??= setTimeout(run, settleMs);
    };
    run();
    const offFrame = live.client.on('frame', (frame) => {
      if (when.current?.(frame)) soon();
    });
    const offConnections = live.connections.subscribe(run);
    const tick = setInterval(run, everyMs);
    return () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
      clearInterval(tick);
      offFrame();
      offConnections();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [live, settleMs, everyMs, attempt, ...deps]);

  return { data, error, reload: () => setAttempt((n) => n + 1) };
}
