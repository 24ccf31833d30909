// Personal access tokens over the REST API, on a real hub and both stores: minted and shown once,
// listed without the secret, stored as a digest only, revoked by their owner or an admin; every
// other caller refused (machines 403, another member's token reads as missing).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';

describeEachDriver('access tokens', (driver) => {
  let t: TestHub;
  let member: { id: number; username: string; token: string };
  let other: { id: number; username: string; token: string };
  let agent: { id: number; username: string; api_token: string };

  beforeAll(async () => {
    t = await startTestHub(driver);
    member = await t.createMember();
    other = await t.createMember();
    agent = await t.createAgent();
  });
  afterAll(() => t?.stop());

  const mint = (token: string, body: Record<string, unknown>) => t.api.post('/api/auth/access-tokens', body, { token });

  it('mints a token shown once, lists it without the secret, and stores only a digest', async () => {
    const res = await mint(member.token, { name: 'laptop: coding agent' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ user_id: member.id, username: member.username, name: 'laptop: coding agent' });
    const token = res.body.token as string;
    expect(token).toMatch(/^hubpat_[\w-]{43}$/);
    expect(res.body.token_hint).toBe(`${token.slice(0, 4)}...${token.slice(-4)}`);

    const list = await t.api.get('/api/auth/access-tokens', { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: res.body.id,
        user_id: member.id,
        username: member.username,
        name: 'laptop: coding agent',
        token_hint: res.body.token_hint,
        created_at: res.body.created_at,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(token);

    const rows = await t.hub.store.db.selectFrom('access_tokens').selectAll().where('id', '=', res.body.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]!.token_lookup).toMatch(/^[\w-]{43}$/);
  });

  it('two mints never give the same token', async () => {
    const a = await mint(member.token, { name: 'a' });
    const b = await mint(member.token, { name: 'b' });
    expect(a.body.token).not.toBe(b.body.token);
  });

  it('refuses bad input with 400', async () => {
    expect((await mint(member.token, {})).status).toBe(400);
    expect((await mint(member.token, { name: '   ' })).status).toBe(400);
    expect((await mint(member.token, { name: 'x'.repeat(101) })).status).toBe(400);
    expect((await t.api.delete('/api/auth/access-tokens/abc', { token: member.token })).status).toBe(400);
  });

  it('refuses anonymous callers (401) and machines (403)', async () => {
    expect((await t.api.get('/api/auth/access-tokens')).status).toBe(401);
    expect((await mint('nonsense', { name: 'x' })).status).toBe(401);
    const asAgent = await mint(agent.api_token, { name: 'x' });
    expect(asAgent.status).toBe(403);
    expect(asAgent.body.error).toBe('access tokens are for human users: agents have their api_token');
    expect((await t.api.get('/api/auth/access-tokens', { token: agent.api_token })).status).toBe(403);
  });

  it("keeps a member out of another user's tokens: listing, minting and revoking", async () => {
    const theirs = await mint(other.token, { name: 'theirs' });
    expect((await t.api.get(`/api/auth/access-tokens?user_id=${other.id}`, { token: member.token })).status).toBe(403);
    expect((await t.api.get('/api/auth/access-tokens?all=true', { token: member.token })).status).toBe(403);
    expect((await mint(member.token, { name: 'for them', user_id: other.id })).status).toBe(403);
    const revoke = await t.api.delete(`/api/auth/access-tokens/${theirs.body.id}`, { token: member.token });
    expect(revoke.status).toBe(404);
    const still = await t.api.get('/api/auth/access-tokens', { token: other.token });
    expect(still.body.map((r: { id: number }) => r.id)).toContain(theirs.body.id);
  });

  it("lets an admin list, mint and revoke a human's tokens, never an agent's", async () => {
    const minted = await mint(t.adminToken, { name: 'issued by admin', user_id: other.id });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ user_id: other.id, username: other.username });
    const listed = await t.api.get(`/api/auth/access-tokens?user_id=${other.id}`, { token: t.adminToken });
    expect(listed.body.map((r: { id: number }) => r.id)).toContain(minted.body.id);
    const all = await t.api.get('/api/auth/access-tokens?all=true', { token: t.adminToken });
    expect(all.body.map((r: { user_id: number }) => r.user_id)).toEqual(expect.arrayContaining([member.id, other.id]));
    expect((await mint(t.adminToken, { name: 'x', user_id: agent.id })).status).toBe(400);
    expect((await mint(t.adminToken, { name: 'x', user_id: 999_999 })).status).toBe(404);
    expect((await t.api.delete(`/api/auth/access-tokens/${minted.body.id}`, { token: t.adminToken })).status).toBe(200);
    const after = await t.api.get(`/api/auth/access-tokens?user_id=${other.id}`, { token: t.adminToken });
    expect(after.body.map((r: { id: number }) => r.id)).not.toContain(minted.body.id);
  });

  it('revoking twice answers 404 the second time', async () => {
    const res = await mint(member.token, { name: 'short-lived' });
    expect((await t.api.delete(`/api/auth/access-tokens/${res.body.id}`, { token: member.token })).body).toEqual({ ok: true });
    expect((await t.api.delete(`/api/auth/access-tokens/${res.body.id}`, { token: member.token })).status).toBe(404);
  });

  it("a deleted user's tokens go with them", async () => {
    const leaving = await t.createMember();
    const res = await mint(leaving.token, { name: 'leaving' });
    expect((await t.api.delete(`/api/users/${leaving.id}`, { token: t.adminToken })).status).toBe(200);
    const rows = await t.hub.store.db.selectFrom('access_tokens').select('id').where('id', '=', res.body.id).execute();
    expect(rows).toEqual([]);
  });

  it('caps the tokens one user holds', async () => {
    const busy = await t.createMember();
    for (let i = 0; i < 50; i++) expect((await mint(busy.token, { name: `n${i}` })).status).toBe(201);
    const over = await mint(busy.token, { name: 'one too many' });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatch(/at most 50/);
  });
});
