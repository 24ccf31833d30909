// A per-caller bound on expensive reads in progress (routes marked `heavyRead`: the message list and
// search, the charts' counts): one member calling them in a loop from many tabs or scripts gets 429
// with Retry-After beyond READS_PER_CALLER, instead of taking every slot of the read side from the
// others. Counted per user, whatever address or socket the requests come from. A refusal is sent
// after a short pause: a client that ignores Retry-After and asks again at once would otherwise
// make the hub answer hundreds of refusals a second, on the event loop every socket shares.
import { Errors } from '../errors.js';

export interface ReadGate {
  /** A slot of `callerId`'s, given back by calling the function returned; false when all are taken. */
  enter(callerId: number): (() => void) | false;
  /** The 429 of a caller without a free slot: rejects with it after the pause. */
  refusal(): Promise<never>;
  /** Reads in progress for one caller (tests, inspection). */
  inProgress(callerId: number): number;
}

/** Long enough that a client retrying at once costs the hub a few requests a second, short for a person. */
export const REFUSAL_PAUSE_MS = 250;

export function createReadGate(perCaller: number, pauseMs = REFUSAL_PAUSE_MS): ReadGate {
  const counts = new Map<number, number>();
  return {
    enter(callerId) {
      const now = counts.get(callerId) ?? 0;
      if (now >= perCaller) return false;
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
    refusal: () => new Promise<never>((_resolve, reject) => setTimeout(() => reject(Errors.tooManyReads(perCaller)), pauseMs)),
    inProgress: (callerId) => counts.get(callerId) ?? 0,
  };
}
