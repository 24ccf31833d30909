// Who answered a failed request or upgrade, as the client says it: the hub (its `{"error"}` body) or
// something in front of it (a balancer's page). The REST helper's errors and the probe's verdicts over
// a scripted fetch (the network, not a part of ours).
import { describe, expect, it } from 'vitest';
import { describeAnswer, hubErrorOf } from '../../../src/client/answers.js';
import { probeHub } from '../../../src/client/probe.js';
import { createRestClient, HubRequestError } from '../../../src/client/rest.js';

const HAPROXY_PAGE = '<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n';
const BUTLER = JSON.stringify({ id: 2, username: 'Butler', role: 'BUTLER' });

/** A REST client whose every request gets this answer (or fails as an unreachable host does). */
function restAnswering(status: number, body: string, headers: Record<string, string> = {}) {
  const fetch = (async () => new Response(body, { status, headers })) as typeof globalThis.fetch;
  return createRestClient({ url: 'http://hub.test', token: 't', fetch });
}
const unreachableRest = createRestClient({
  url: 'http://hub.test',
  token: 't',
  fetch: (async () => {
    throw new TypeError('fetch failed', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
  }) as typeof globalThis.fetch,
});

describe('describeAnswer', () => {
  it.each([
    [{ status: 503 }, 'the hub is unavailable (503 from a proxy)'],
    [{ status: 503, server: 'nginx/1.25' }, 'the hub is unavailable (503 from nginx/1.25)'],
    [{ status: 502 }, 'the hub is unavailable (502 from a proxy)'],
    [{ status: 504, server: 'envoy' }, 'the hub is unavailable (504 from envoy)'],
    [{ status: 503, hubError: 'the store is unreachable' }, 'the hub is unavailable (503: the store is unreachable)'],
    [{ status: 403, hubError: 'admin access required' }, 'the hub answered 403 (admin access required)'],
    [{ status: 404, server: 'nginx' }, "the hub's address answered 404 from nginx, not from the hub"],
  ])('%j → %s', (answer, line) => {
    expect(describeAnswer(answer)).toBe(line);
  });

  it('takes only the hub’s error shape for the hub’s words', () => {
    expect(hubErrorOf('{"error":"invalid token"}')).toBe('invalid token');
    expect(hubErrorOf(HAPROXY_PAGE)).toBeUndefined();
    expect(hubErrorOf('{"message":"x"}')).toBeUndefined();
    expect(hubErrorOf('["error"]')).toBeUndefined();
    expect(hubErrorOf('null')).toBeUndefined();
  });
});

describe('REST errors say who answered', () => {
  it("a balancer's HTML 503 is the hub being unavailable, from a proxy, not 'text that is not JSON'", async () => {
    const err = await restAnswering(503, HAPROXY_PAGE, { 'content-type': 'text/html' })
      .agents.butler()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HubRequestError);
    expect((err as HubRequestError).message).toBe('GET /api/users/butler: the hub is unavailable (503 from a proxy)');
    expect((err as HubRequestError).fromHub).toBe(false);
    expect((err as HubRequestError).answer).toEqual({ status: 503, hubError: undefined, server: undefined });
  });

  it('the hub’s own error keeps its words', async () => {
    const err = (await restAnswering(503, '{"error":"the store is unreachable"}', { server: 'uWebSockets' })
      .agents.butler()
      .catch((e: unknown) => e)) as HubRequestError;
    expect(err.message).toBe('the store is unreachable');
    expect(err.fromHub).toBe(true);
    expect(err.answer).toEqual({ status: 503, hubError: 'the store is unreachable', server: 'uWebSockets' });
  });
});

describe('probeHub: why the socket did not open', () => {
  const base = 'http://hub.test';
  it.each<[string, Parameters<typeof probeHub>[2], ReturnType<typeof restAnswering>, { verdict: string; message: string }]>([
    [
      "a balancer's 503 to the upgrade, while the API answers through another node",
      { status: 503 },
      restAnswering(200, BUTLER),
      { verdict: 'retry', message: 'the hub is unavailable (503 from a proxy)' },
    ],
    [
      "the balancer's JSON 503 to the upgrade",
      { status: 503, hubError: 'no hub node is available behind the load balancer; try again shortly' },
      restAnswering(200, BUTLER),
      { verdict: 'retry', message: 'the hub is unavailable (503: no hub node is available behind the load balancer; try again shortly)' },
    ],
    ['a 503 page to both', { status: 503 }, restAnswering(503, HAPROXY_PAGE), { verdict: 'retry', message: 'the hub is unavailable (503 from a proxy)' }],
    [
      'no readable upgrade answer (a browser), a 503 page to the probe',
      undefined,
      restAnswering(503, HAPROXY_PAGE, { server: 'haproxy' }),
      { verdict: 'retry', message: 'the hub is unavailable (503 from haproxy)' },
    ],
    [
      'no readable upgrade answer, the API answers',
      undefined,
      restAnswering(200, BUTLER),
      { verdict: 'retry', message: 'the hub at http://hub.test accepts the credential but the WebSocket did not open' },
    ],
    [
      'the hub refusing the token to the upgrade',
      { status: 401, hubError: 'invalid token' },
      restAnswering(200, BUTLER),
      { verdict: 'refused', message: 'the hub refused the token (invalid token)' },
    ],
    [
      'the hub refusing the token to the probe',
      undefined,
      restAnswering(401, '{"error":"invalid token"}'),
      { verdict: 'refused', message: 'the hub refused the token (invalid token)' },
    ],
    ['nothing listening', undefined, unreachableRest, { verdict: 'unreachable', message: 'the hub at http://hub.test is unreachable (ECONNREFUSED)' }],
  ])('%s', async (_, upgrade, rest, expected) => {
    expect(await probeHub(rest, base, upgrade)).toEqual(expected);
  });
});
