// A log that follows its newest line while the reader is at the bottom, stays put while they read
// older lines, and keeps its place when older lines are put above it.
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';

/** Within this many pixels of the end counts as at the end. */
const SLACK = 48;

export function useStickToBottom(ref: RefObject<HTMLElement | null>, firstKey: string | undefined, lastKey: string | undefined) {
  const atEnd = useRef(true);
  const [away, setAway] = useState(false);
  const before = useRef<{ height: number; first: string | undefined }>({ height: 0, first: undefined });

  const onScroll = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < SLACK;
    setAway(!atEnd.current);
  }, [ref]);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const prev = before.current;
    if (prev.first !== undefined && firstKey !== prev.first && !atEnd.current) el.scrollTop += el.scrollHeight - prev.height;
    else if (atEnd.current) el.scrollTop = el.scrollHeight;
    before.current = { height: el.scrollHeight, first: firstKey };
  }, [ref, firstKey, lastKey]);

  const toEnd = useCallback(() => {
    const el = ref.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    atEnd.current = true;
    setAway(false);
  }, [ref]);

  return { onScroll, away, toEnd };
}
