// Reads (GET, HEAD) are tried again when the answer means "not now": 502, 503 or 504 — a balancer's
// answer while a node dies, or a hub restarting — 429 (the hub limits the expensive reads one caller has
// in progress, and a page of charts asks for several at once; the wait is then its Retry-After), or no
// answer at all. A short capped backoff (about
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
const RETRYABLE = new Set([429, 502, 503, 504]);
/** A Retry-After longer than this is not waited for here: the answer goes to the page. */
const MAX_RETRY_AFTER_MS = 5_000;

/** The wait a 429 asks for (Retry-After in seconds), if it asks for one this page may wait. */
function retryAfterMs(res: Response): number | undefined {
  const header = res.headers.get('retry-after');
  const seconds = header === null || header.trim() === '' ? NaN : Number(header);
  return res.status === 429 && Number.isFinite(seconds) && seconds >= 0 && seconds * 1000 <= MAX_RETRY_AFTER_MS ? seconds * 1000 : undefined;
}

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

/** `fetch` with reads tried again on 429/502/503/504 and network failures; anything else passes once. */
export function withReadRetry(fetchFn: typeof fetch, settings: ReadRetrySettings = BROWSER): typeof fetch {
  return async (input, init) => {
    const method = methodOf(input, init);
    if (method !== 'GET' && method !== 'HEAD') return fetchFn(input, init);
    for (let attempt = 0; ; attempt++) {
      let delay = settings.delaysMs[attempt];
      try {
        const res = await fetchFn(input, init);
        if (!RETRYABLE.has(res.status) || delay === undefined) return res;
        if (res.status === 429) {
          const asked = retryAfterMs(res);
          if (asked === undefined) return res;
          delay = Math.max(delay, asked);
        }
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
