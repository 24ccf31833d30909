// The signed-in user's messages to agents and Butler still waiting for a reply: read once from the
// conversations (threads, then each peer's recent history), then kept current by live CHAT frames.
// Read again after every reconnection, when frames may have been missed.
import type { ChatFrameIn } from '@hub/client';
import { useEffect, useRef, useState } from 'react';
import { useHub } from '../../app/context';
import { useStore } from '../../lib/store';
import { applyChat, waitingIn, type WaitingByPeer } from './unanswered';

/** Conversations read, the most recently active first; each is one request. */
export const MAX_PEERS = 50;
/** Rows read per conversation: a reply within them answers what came before. */
const HISTORY_ROWS = 100;
const PARALLEL = 4;

export interface WaitingState {
  byPeer: WaitingByPeer;
  loading: boolean;
  error: unknown;
  /** More conversations than were read. */
  truncated: boolean;
}

async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function useWaiting(): WaitingState & { reload(): void } {
  const { api, live, session, agents } = useHub();
  const me = useStore(session.current)?.user.id ?? 0;
  const machines = useStore(agents.state).byId;
  const connections = useStore(live.connections);
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<WaitingState>({ byPeer: new Map(), loading: true, error: undefined, truncated: false });
  const isMachine = useRef<(id: number) => boolean>(() => false);
  useEffect(() => {
    isMachine.current = (id) => machines.has(id);
  }, [machines]);

  useEffect(() => {
    let cancelled = false;
    // Frames that arrive while the histories load are applied again on top of them.
    let during: ChatFrameIn[] | undefined = [];
    const apply = (map: WaitingByPeer, frame: ChatFrameIn) => applyChat(map, frame, me, (id) => isMachine.current(id));
    const off = live.client.on('CHAT', (frame) => {
      during?.push(frame);
      setState((prev) => {
        const byPeer = apply(prev.byPeer, frame);
        return byPeer === prev.byPeer ? prev : { ...prev, byPeer };
      });
    });

    async function load() {
      setState((prev) => ({ ...prev, loading: true, error: undefined }));
      try {
        const threads = await api.chat.threads({ include_archived: true });
        const peers = [...new Set(threads.map((t) => t.peer_user_id))];
        const read = peers.slice(0, MAX_PEERS);
        const found = new Map<number, ReturnType<typeof waitingIn>>();
        await eachLimited(read, PARALLEL, async (peerId) => {
          found.set(peerId, waitingIn(await api.chat.history(peerId, { limit: HISTORY_ROWS }), me, peerId));
        });
        if (cancelled) return;
        let byPeer: WaitingByPeer = new Map([...found].filter((e): e is [number, NonNullable<(typeof e)[1]>] => e[1] !== undefined));
        for (const frame of during ?? []) byPeer = apply(byPeer, frame);
        setState({ byPeer, loading: false, error: undefined, truncated: peers.length > read.length });
      } catch (err) {
        if (!cancelled) setState((prev) => ({ ...prev, loading: false, error: err }));
      } finally {
        during = undefined;
      }
    }
    void load();
    return () => {
      cancelled = true;
      off();
    };
  }, [api, live, me, connections, attempt]);

  return { ...state, reload: () => setAttempt((n) => n + 1) };
}
