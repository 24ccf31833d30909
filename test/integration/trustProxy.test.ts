// Behind a load balancer every client reaches the hub from the balancer's address. With
// TRUST_PROXY naming the balancer, the failed-login budget per address follows X-Forwarded-For, so
// one client's guessing does not lock out the others; without it the header is ignored (a client
// cannot dodge the budget by sending one). With a hop count anyone reaching the port forges the
// header: the per-account cap still stops the guesses on each name.
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

  for (const trustProxy of ['1', 'loopback']) {
    it(`locks a name guessed with rotated X-Forwarded-For values at the per-account cap (TRUST_PROXY=${trustProxy})`, async () => {
      t = await startTestHub('sqlite', { ...LIMITS, LOGIN_MAX_FAILURES_PER_ACCOUNT: '4', TRUST_PROXY: trustProxy });
      // Each forged address has a fresh per-address budget...
      for (let i = 1; i <= 4; i++) expect((await fail(t, `203.0.113.${i}`)).status).toBe(401);
      // ...but the name has none left, from any address, whatever the password.
      for (const forwardedFor of ['203.0.113.5', '198.51.100.20']) {
        const locked = await login(t, forwardedFor);
        expect(locked.status).toBe(429);
        expect(locked.body.error).toMatch(/^too many failed logins for this name from all addresses; its logins are locked for \d+ s$/);
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });
  }

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    t = await startTestHub('sqlite', LIMITS);
    expect((await fail(t, '203.0.113.7')).status).toBe(401);
    expect((await fail(t, '203.0.113.8')).status).toBe(401);
    // A new header value does not buy new guesses: the socket's address is what counts.
    expect((await fail(t, '203.0.113.9')).status).toBe(429);
  });
});
