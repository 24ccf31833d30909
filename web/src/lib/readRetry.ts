// Reads (GET, HEAD) are tried again when the answer means "not now": 502, 503 or 504 — a balancer's
// answer while a node dies, or a hub restarting — or no answer at all. A short capped backoff (about
// 6 s in all) rides out a node's death behind a balancer, so a page shows no error for it; past that
// the last answer (or failure) goes to the page as before. Writes are never repeated here: the hub may
// have stored one whose answer was lost.

export interface ReadRetrySettings {
  /** The wait before each new attempt (ms); after the last the answer stands. */
  delaysMs: readonly number[];
  sleep(ms: number): Promise<void>;
  /** 0 ≤ x < 1: each wait is between half and all of its delay, so pages do not retry in step. */
  random(): number;
}

/** Answers a read is tried again after. */
const RETRYABLE = new Set([502, 503, 504]);

/** 0.25 s doubling to a cap of 2 s: about 6 s of attempts. */
export const READ_RETRY_DELAYS_MS = [250, 500, 1000, 2000, 2000] as const;

const BROWSER: ReadRetrySettings = {
  delaysMs: READ_RETRY_DELAYS_MS,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

function methodOf(input: RequestInfo | URL, init: RequestInit | undefined): string {
  return (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
}

/** `fetch` with reads tried again on 502/503/504 and network failures; anything else passes once. */
export function withReadRetry(fetchFn: typeof fetch, settings: ReadRetrySettings = BROWSER): typeof fetch {
  return async (input, init) => {
    const method = methodOf(input, init);
    if (method !== 'GET' && method !== 'HEAD') return fetchFn(input, init);
    for (let attempt = 0; ; attempt++) {
      const delay = settings.delaysMs[attempt];
      try {
        const res = await fetchFn(input, init);
        if (!RETRYABLE.has(res.status) || delay === undefined) return res;
        // Not read: the connection is released for the next attempt.
        void res.body?.cancel().catch(() => undefined);
      } catch (err) {
        // fetch rejects with a TypeError when nothing answered; an abort (the page left) stands.
        if (delay === undefined || !(err instanceof TypeError) || init?.signal?.aborted) throw err;
      }
      await settings.sleep(Math.round(delay * (1 - settings.random() / 2)));
      if (init?.signal?.aborted) throw init.signal.reason;
    }
  };
}
