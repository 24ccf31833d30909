// The access matrix: public / any authenticated user / admin / admin outside production, walked
// over every route, including every refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { concrete, ROUTES } from '../helpers/routes.js';

const PRODUCTION_ENV = { APP_ENV: 'production' };

describeEachDriver('access matrix', (driver) => {
  let t: TestHub;
  let member: { token: string };
  let agent: { api_token: string };
  beforeAll(async () => {
    t = await startTestHub(driver);
    member = await t.createMember();
    agent = await t.createAgent();
  });
  afterAll(() => t.stop());

  describe.each(ROUTES.filter((r) => r.access !== 'public'))('$method $path ($access)', (route) => {
    it('refuses a caller without credentials with 401', async () => {
      const res = await t.api.request(route.method, concrete(route.path), { body: {} });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'authorization header required' });
    });

    if (route.access === 'authenticated') {
      it('serves a member and an agent', async () => {
        for (const token of [member.token, agent.api_token]) {
          const res = await t.api.request(route.method, concrete(route.path), { token, body: { level: 'INFO', content: 'access check' } });
          expect([401, 403]).not.toContain(res.status);
        }
      });
    } else {
      it('refuses a member and an agent with 403 admin access required', async () => {
        for (const token of [member.token, agent.api_token]) {
          const res = await t.api.request(route.method, concrete(route.path), { token, body: {} });
          expect(res.status).toBe(403);
          expect(res.body).toEqual({ error: 'admin access required' });
        }
      });
    }
  });

  it('serves the public routes without credentials', async () => {
    expect((await t.api.get('/api/ping')).status).toBe(200);
    expect((await t.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);
    expect((await t.api.post('/api/auth/register', { username: 'someone', password: 'long-enough' })).status).toBe(403);
  });
});

describeEachDriver('access matrix in production', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, PRODUCTION_ENV);
  });
  afterAll(() => t.stop());

  it.each(ROUTES.filter((r) => r.access === 'admin-non-production'))('refuses $method $path even to an admin', async (route) => {
    const res = await t.api.request(route.method, concrete(route.path), { token: t.adminToken, body: {} });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'mock endpoints are disabled in production' });
  });

  it('still serves the admin routes to an admin', async () => {
    for (const route of ROUTES.filter((r) => r.access === 'admin' && r.method === 'GET')) {
      expect((await t.api.get(concrete(route.path), { token: t.adminToken })).status).toBe(200);
    }
  });
});
