// "Waiting for an answer": a message the signed-in user sent to an agent or Butler that has had no
// reply from it since. Per peer, the oldest such message counts (the one waiting longest); a reply
// from the peer answers everything before it. Pure, so it is tested without a browser.

/** The fields of a chat row (history) or CHAT frame (live) this needs. */
export interface ChatLike {
  id?: number;
  type: string;
  sender_id: number;
  target_id?: number | null;
  payload: string;
  timestamp: string;
}

export interface Waiting {
  peerId: number;
  /** The stored id, when known (a live echo carries it). */
  id: number | undefined;
  text: string;
  timestamp: string;
}

export type WaitingByPeer = ReadonlyMap<number, Waiting>;

/** The oldest of `me`'s messages to `peer` with no reply after it, from a history oldest first. */
export function waitingIn(history: readonly ChatLike[], me: number, peerId: number): Waiting | undefined {
  let waiting: Waiting | undefined;
  for (const row of history) waiting = step(waiting, row, me, peerId);
  return waiting;
}

function step(waiting: Waiting | undefined, row: ChatLike, me: number, peerId: number): Waiting | undefined {
  if (row.type !== 'CHAT') return waiting;
  if (row.sender_id === peerId) return undefined;
  if (row.sender_id === me && !waiting) return { peerId, id: row.id, text: row.payload, timestamp: row.timestamp };
  return waiting;
}

/**
 * One live CHAT applied: the user's own message to a machine peer starts waiting (unless an older one
 * already does); the peer's message to the user answers. Returns `map` itself when nothing changed.
 */
export function applyChat(map: WaitingByPeer, frame: ChatLike, me: number, isMachine: (id: number) => boolean): WaitingByPeer {
  if (frame.type !== 'CHAT') return map;
  let peerId: number | undefined;
  if (frame.sender_id === me && frame.target_id != null && isMachine(frame.target_id)) peerId = frame.target_id;
  else if (frame.target_id === me && isMachine(frame.sender_id)) peerId = frame.sender_id;
  if (peerId === undefined) return map;
  const before = map.get(peerId);
  const after = step(before, frame, me, peerId);
  if (after === before) return map;
  const next = new Map(map);
  if (after) next.set(peerId, after);
  else next.delete(peerId);
  return next;
}

/** The one waiting longest. */
export function oldestWaiting(map: WaitingByPeer): Waiting | undefined {
  let oldest: Waiting | undefined;
  for (const w of map.values()) if (!oldest || Date.parse(w.timestamp) < Date.parse(oldest.timestamp)) oldest = w;
  return oldest;
}
