// The dashboard's reads ride out a node's death behind a balancer: a GET that meets 502/503/504 or no
// answer is tried again after short capped waits (a 429 after its Retry-After), then the answer stands;
// writes and other answers pass once.
import { describe, expect, it } from 'vitest';
import { READ_RETRY_DELAYS_MS, withReadRetry, type ReadRetrySettings } from '../../../web/src/lib/readRetry.js';

const HAPROXY_PAGE = '<html><body><h1>503 Service Unavailable</h1></body></html>';

/** A fetch that gives the scripted answers in order (a status, or 'down' for no answer), and what was slept. */
function scripted(answers: Array<number | 'down' | { status: number; retryAfter: string }>, settings: Partial<ReadRetrySettings> = {}) {
  const calls: string[] = [];
  const fetchFn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    const next = answers.shift() ?? 200;
    const status = typeof next === 'object' ? next.status : next;
    calls.push(`${init?.method ?? 'GET'} → ${status}`);
    if (status === 'down') throw new TypeError('Failed to fetch');
    const headers = typeof next === 'object' ? { 'Retry-After': next.retryAfter } : undefined;
    return new Response(status === 200 ? '{"ok":true}' : HAPROXY_PAGE, { status, headers });
  }) as typeof fetch;
  const read = withReadRetry(fetchFn, {
    delaysMs: READ_RETRY_DELAYS_MS,
    sleep: async (ms) => void calls.push(`sleep ${ms}`),
    random: () => 0,
    ...settings,
  });
  return { read, calls };
}

describe('readRetry', () => {
  it('reads again after a 503 twice and answers the success', async () => {
    const { read, calls } = scripted([503, 503, 200]);
    const res = await read('http://hub/api/users/agents');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(calls).toEqual(['GET → 503', 'sleep 250', 'GET → 503', 'sleep 500', 'GET → 200']);
  });

  it('tries again on 502, 504 and no answer at all, with waits doubling to a cap of 2 s', async () => {
    const { read, calls } = scripted([502, 'down', 504, 503, 503, 503]);
    const res = await read('http://hub/api/stats/messages');
    // After the last wait the answer stands: the page shows it.
    expect(res.status).toBe(503);
    expect(calls.filter((c) => c.startsWith('sleep'))).toEqual(['sleep 250', 'sleep 500', 'sleep 1000', 'sleep 2000', 'sleep 2000']);
    expect(calls.filter((c) => c.startsWith('GET'))).toHaveLength(6);
  });

  it('throws the last failure when nothing ever answers', async () => {
    const { read } = scripted(['down', 'down', 'down', 'down', 'down', 'down']);
    await expect(read('http://hub/api/ready')).rejects.toThrow('Failed to fetch');
  });

  it('spreads the waits: each is between half and all of its delay', async () => {
    const { read, calls } = scripted([503, 503, 200], { random: () => 0.5 });
    await read('http://hub/x');
    expect(calls.filter((c) => c.startsWith('sleep'))).toEqual(['sleep 188', 'sleep 375']);
  });

  it('passes writes and other answers once', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const { read, calls } = scripted([503]);
      expect((await read('http://hub/api/messages', { method })).status).toBe(503);
      expect(calls).toEqual([`${method} → 503`]);
    }
    for (const status of [400, 401, 404, 429, 500]) {
      const { read, calls } = scripted([status]);
      expect((await read('http://hub/api/x')).status).toBe(status);
      expect(calls).toHaveLength(1);
    }
  });

  it('reads again after a 429 that asks for a short wait (expensive reads limited per caller), waiting its Retry-After', async () => {
    const { read, calls } = scripted([{ status: 429, retryAfter: '1' }, { status: 429, retryAfter: '1' }, 200]);
    expect((await read('http://hub/api/stats/reports')).status).toBe(200);
    expect(calls).toEqual(['GET → 429', 'sleep 1000', 'GET → 429', 'sleep 1000', 'GET → 200']);
  });

  it('passes a 429 that asks for a long wait, or names none, once', async () => {
    for (const answer of [{ status: 429, retryAfter: '60' }, 429]) {
      const { read, calls } = scripted([answer]);
      expect((await read('http://hub/api/stats/reports')).status).toBe(429);
      expect(calls).toHaveLength(1);
    }
  });

  it('stops when the read is aborted (the page left)', async () => {
    const controller = new AbortController();
    const { read, calls } = scripted([503, 200], {
      sleep: async () => {
        calls.push('sleep');
        controller.abort(new DOMException('left', 'AbortError'));
      },
    });
    await expect(read('http://hub/x', { signal: controller.signal })).rejects.toThrow('left');
    expect(calls).toEqual(['GET → 503', 'sleep']);
  });
});
