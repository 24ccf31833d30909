// Checked credentials are remembered (a JWT's signature, an agent token's digest), but who holds
// them is not: a rotated token, a deleted agent or user and a changed role take effect on the very
// next request, however warm the cache. Paged agent lists count right from a single query.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';

describeEachDriver('credential cache', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  const listAgents = (token: string) => t.api.get('/api/users/agents', { token });
  const post = (token: string) => t.api.post('/api/messages', { level: 'INFO', content: 'cached?' }, { token });

  it('refuses a rotated agent token at once, and takes the new one', async () => {
    const agent = await t.createAgent();
    for (let i = 0; i < 3; i++) expect((await post(agent.api_token)).status).toBe(201);
    const rotated = await t.api.patch(`/api/users/agents/${agent.id}/token`, undefined, { token: t.adminToken });
    expect(rotated.status).toBe(200);
    const old = await post(agent.api_token);
    expect(old.status).toBe(401);
    expect(old.body).toEqual({ error: 'invalid token' });
    expect((await post(rotated.body.api_token)).status).toBe(201);
  });

  it('refuses a deleted agent at once', async () => {
    const agent = await t.createAgent();
    expect((await listAgents(agent.api_token)).status).toBe(200);
    expect((await t.api.delete(`/api/users/agents/${agent.id}`, { token: t.adminToken })).status).toBe(200);
    expect((await listAgents(agent.api_token)).status).toBe(401);
  });

  it("refuses a deleted user's session at once", async () => {
    const member = await t.createMember();
    expect((await listAgents(member.token)).status).toBe(200);
    expect((await listAgents(member.token)).status).toBe(200);
    expect((await t.api.delete(`/api/users/${member.id}`, { token: t.adminToken })).status).toBe(200);
    const after = await listAgents(member.token);
    expect(after.status).toBe(401);
  });

  it('applies a role change to the next request of a cached session', async () => {
    const admin = await t.createMember({ role: 'ADMIN' });
    expect((await t.api.get('/api/users', { token: admin.token })).status).toBe(200);
    expect((await t.api.patch(`/api/users/${admin.id}`, { role: 'MEMBER' }, { token: t.adminToken })).status).toBe(200);
    expect((await t.api.get('/api/users', { token: admin.token })).status).toBe(403);
    expect((await listAgents(admin.token)).status).toBe(200);
  });

  it('still refuses a token with a forged signature after the real one was cached', async () => {
    const member = await t.createMember();
    expect((await listAgents(member.token)).status).toBe(200);
    const [head, body, signature] = member.token.split('.') as [string, string, string];
    const forged = `${head}.${body}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await listAgents(forged)).status).toBe(401);
  });

  it('counts the agents in X-Total-Count on full, partial and empty pages', async () => {
    const prefix = uniqueName('paged');
    for (let i = 0; i < 3; i++) await t.createAgent(`${prefix}-${i}`);
    const page = (query: string) => listAgents(t.adminToken).then(() => t.api.get(`/api/users/agents?q=${prefix}&${query}`, { token: t.adminToken }));
    const full = await page('limit=2&page=1');
    expect(full.body.map((a: { username: string }) => a.username)).toEqual([`${prefix}-0`, `${prefix}-1`]);
    expect(full.headers.get('x-total-count')).toBe('3');
    const last = await page('limit=2&page=2');
    expect(last.body).toHaveLength(1);
    expect(last.headers.get('x-total-count')).toBe('3');
    const past = await page('limit=2&page=5');
    expect(past.body).toEqual([]);
    expect(past.headers.get('x-total-count')).toBe('3');
    // The compiled shapes (no search) count the same way.
    const all = await t.api.get('/api/users/agents?limit=1', { token: t.adminToken });
    expect(all.body).toHaveLength(1);
    const everyone = await t.api.get('/api/users/agents', { token: t.adminToken });
    expect(all.headers.get('x-total-count')).toBe(String(everyone.body.length));
    expect(everyone.headers.get('x-total-count')).toBe(String(everyone.body.length));
    const beyond = await t.api.get(`/api/users/agents?exclude_role=BUTLER&limit=1&page=${everyone.body.length + 5}`, { token: t.adminToken });
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe(String(everyone.body.length - 1));
    const butler = everyone.body.find((a: { role: string }) => a.role === 'BUTLER');
    expect(butler).toBeDefined();
    expect(Object.keys(butler)).not.toContain('token_hint');
  });
});
