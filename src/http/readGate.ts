// A per-caller bound on expensive reads in progress (routes marked `heavyRead`: the message list and
// search, the charts' counts): one member calling them in a loop from many tabs or scripts gets 429
// with Retry-After beyond READS_PER_CALLER, instead of taking every slot of the read side from the
// others. Counted per user, whatever address or socket the requests come from.
import { Errors } from '../errors.js';

export interface ReadGate {
  /** Takes a slot of `callerId`'s, or throws the 429; the slot is given back by `release`. */
  enter(callerId: number): () => void;
  /** Reads in progress for one caller (tests, inspection). */
  inProgress(callerId: number): number;
}

export function createReadGate(perCaller: number): ReadGate {
  const counts = new Map<number, number>();
  return {
    enter(callerId) {
      const now = counts.get(callerId) ?? 0;
      if (now >= perCaller) throw Errors.tooManyReads(perCaller);
      counts.set(callerId, now + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(callerId) ?? 1) - 1;
        if (left > 0) counts.set(callerId, left);
        else counts.delete(callerId);
      };
    },
    inProgress: (callerId) => counts.get(callerId) ?? 0,
  };
}
