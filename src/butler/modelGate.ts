// At most `max` language-model calls at once, hub-wide, so a burst of conversations cannot flood
// the event loop with streams or a paid endpoint with requests (BUTLER_MAX_CONCURRENCY). Calls
// past the cap wait in one queue per key (a conversation) and are let in round-robin over the keys:
// a conversation with several calls waiting gets one in before each other waiting conversation
// gets its next, so one burst cannot starve the rest. A waiting call whose signal aborts leaves.
import type { LanguageModel } from './model.js';

export interface ModelGate {
  /** Resolves with the release of a slot once one is free; rejects with the signal's reason if it aborts first. */
  acquire(key: string, signal: AbortSignal): Promise<() => void>;
  /** Calls holding a slot. */
  readonly active: number;
  /** Calls waiting for one. */
  readonly queued: number;
  readonly max: number;
}

interface Waiter {
  grant(): void;
}

export function createModelGate(max: number): ModelGate {
  let active = 0;
  let queued = 0;
  /** Keys with calls waiting; the Map's order is the round-robin ring (the front goes next). */
  const waiting = new Map<string, Waiter[]>();

  function slot(): () => void {
    active++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      active--;
      admit();
    };
  }

  function admit(): void {
    while (active < max && waiting.size > 0) {
      const [key, line] = waiting.entries().next().value!;
      waiting.delete(key);
      const next = line.shift()!;
      // Its other calls go to the back of the ring, behind every other waiting key.
      if (line.length > 0) waiting.set(key, line);
      queued--;
      next.grant();
    }
  }

  return {
    max,
    get active() {
      return active;
    },
    get queued() {
      return queued;
    },
    acquire(key, signal) {
      if (signal.aborted) return Promise.reject(signal.reason as Error);
      if (active < max && waiting.size === 0) return Promise.resolve(slot());
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          grant() {
            signal.removeEventListener('abort', onAbort);
            resolve(slot());
          },
        };
        const onAbort = () => {
          const line = waiting.get(key);
          const at = line?.indexOf(waiter) ?? -1;
          if (line && at >= 0) {
            line.splice(at, 1);
            if (line.length === 0) waiting.delete(key);
            queued--;
          }
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const line = waiting.get(key);
        if (line) line.push(waiter);
        else waiting.set(key, [waiter]);
        queued++;
      });
    },
  };
}

/** The model with each step holding one of the gate's slots for as long as it streams. */
export function gatedModel(model: LanguageModel, gate: ModelGate): LanguageModel {
  return {
    name: model.name,
    async step(messages, tools, options) {
      const release = await gate.acquire(options.queueKey ?? '', options.signal);
      try {
        return await model.step(messages, tools, options);
      } finally {
        release();
      }
    },
  };
}
