// The user's threads with one peer, archived ones included (the list hides them unless asked, but an
// archived thread opened by its address still shows). Changes made here are applied to the list at
// once; a conversation the list does not know yet (made in another tab) reloads it.
import type { ThreadView } from '@hub/client';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useHub } from '../../app/context';
import { useStore } from '../../lib/store';

export interface ThreadsState {
  list: ThreadView[] | undefined;
  error: unknown;
  reload(): void;
  /** Puts a created or changed thread into the list. */
  put(thread: ThreadView): void;
}

export function useThreads(peerId: number | undefined): ThreadsState {
  const { api, chat } = useHub();
  const [list, setList] = useState<ThreadView[]>();
  const [error, setError] = useState<unknown>();
  const generation = useRef(0);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  useEffect(() => {
    const mine = ++generation.current;
    setError(undefined);
    if (peerId === undefined) return;
    api.chat.threads({ peer_id: peerId, include_archived: true }).then(
      (threads) => {
        if (mine !== generation.current) return;
        setList(threads);
      },
      (err: unknown) => {
        if (mine === generation.current) setError(err);
      },
    );
  }, [api, peerId, attempt]);

  // A different peer starts with no list (not the previous peer's).
  const [listedPeer, setListedPeer] = useState(peerId);
  if (listedPeer !== peerId) {
    setListedPeer(peerId);
    setList(undefined);
  }

  // Conversations with this peer that the list lacks: reload once for them.
  const peers = useStore(chat.state).peers;
  const asked = useRef(new Set<number>());
  useEffect(() => {
    if (!list || peerId === undefined) return;
    for (const [conversation, peer] of peers) {
      if (conversation < 0 || peer !== peerId || asked.current.has(conversation) || list.some((t) => t.id === conversation)) continue;
      asked.current.add(conversation);
      reload();
      return;
    }
  }, [peers, list, peerId, reload]);

  const put = useCallback((thread: ThreadView) => {
    setList((prev) => (prev ? (prev.some((t) => t.id === thread.id) ? prev.map((t) => (t.id === thread.id ? thread : t)) : [thread, ...prev]) : [thread]));
  }, []);

  return { list, error, reload, put };
}
