// Behind a load balancer every client reaches the hub from the balancer's address. With
// TRUST_PROXY naming the balancer, the failed-login budget per address follows X-Forwarded-For, so
// one client's guessing does not lock out the others; without it the header is ignored (a client
// cannot dodge the budget by sending one).
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';

const LIMITS = { LOGIN_MAX_FAILURES: '2', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' };

describe('client addresses behind a proxy', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });
  const fail = (hub: TestHub, forwardedFor: string) =>
    hub.api.post('/api/auth/login', { username: 'admin', password: 'wrong-password' }, { headers: { 'X-Forwarded-For': forwardedFor } });
  const login = (hub: TestHub, forwardedFor: string) =>
    hub.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' }, { headers: { 'X-Forwarded-For': forwardedFor } });

  it('counts failed logins per forwarded client when the proxy is trusted', async () => {
    t = await startTestHub('sqlite', { ...LIMITS, TRUST_PROXY: 'loopback' });
    expect((await fail(t, '203.0.113.7')).status).toBe(401);
    expect((await fail(t, '203.0.113.7')).status).toBe(401);
    expect((await fail(t, '203.0.113.7')).status).toBe(429);
    // Another client behind the same balancer is not locked out.
    expect((await login(t, '198.51.100.20')).status).toBe(200);
  });

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    t = await startTestHub('sqlite', LIMITS);
    expect((await fail(t, '203.0.113.7')).status).toBe(401);
    expect((await fail(t, '203.0.113.8')).status).toBe(401);
    // A new header value does not buy new guesses: the socket's address is what counts.
    expect((await fail(t, '203.0.113.9')).status).toBe(429);
  });
});
