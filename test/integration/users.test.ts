// Human users: list, create, detail scoping, role/password change, deletion, and bad input.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';

describeEachDriver('users', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('creates a human who can log in with the password given (role defaults to MEMBER)', async () => {
    const username = uniqueName('alice');
    const res = await t.api.post('/api/users', { username, password: 'alice-password' }, { token: t.adminToken });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username, role: 'MEMBER', actor_type: 'HUMAN', status: 'OFFLINE', online: false, last_seen_at: null });
    expect(res.body).not.toHaveProperty('password');
    expect(res.body).not.toHaveProperty('password_hash');
    expect(await t.login(username, 'alice-password')).toBeTruthy();
  });

  it('creates a human without a password who cannot log in', async () => {
    const username = uniqueName('nopass');
    expect((await t.api.post('/api/users', { username }, { token: t.adminToken })).status).toBe(201);
    const res = await t.api.post('/api/auth/login', { username, password: 'anything-at-all' });
    expect(res.status).toBe(401);
  });

  it('refuses bad input with 400 naming the field, and duplicates with 409, writing nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'username is required'],
      [{ username: '' }, 'username is required'],
      [{ username: '   ' }, 'username is required'],
      [{ username: 'x'.repeat(65) }, 'username must be at most 64 characters'],
      [{ username: 42 }, 'username must be a string'],
      [{ username: uniqueName('u'), password: 'short' }, 'password must be at least 8 characters'],
      [{ username: uniqueName('u'), role: 'ROOT' }, 'role must be one of ADMIN, MEMBER'],
      [{ username: uniqueName('u'), role: 'AGENT' }, 'role must be one of ADMIN, MEMBER'],
      [{ username: uniqueName('u'), role: 'BUTLER' }, 'role must be one of ADMIN, MEMBER'],
    ];
    const before = (await t.api.get('/api/users', { token: t.adminToken })).headers.get('x-total-count');
    for (const [body, error] of cases) {
      const res = await t.api.post('/api/users', body, { token: t.adminToken });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual({ error });
    }
    const dup = await t.api.post('/api/users', { username: 'admin' }, { token: t.adminToken });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'username already exists' });
    const after = (await t.api.get('/api/users', { token: t.adminToken })).headers.get('x-total-count');
    expect(after).toBe(before);
  });

  it('lists users for admins with role and name filters, paging and X-Total-Count', async () => {
    const prefix = uniqueName('page');
    for (let i = 0; i < 5; i++) await t.api.post('/api/users', { username: `${prefix}-${i}` }, { token: t.adminToken });
    const page1 = await t.api.get(`/api/users?q=${prefix}&limit=2&page=1`, { token: t.adminToken });
    expect(page1.status).toBe(200);
    expect(page1.headers.get('x-total-count')).toBe('5');
    expect(page1.body.map((u: { username: string }) => u.username)).toEqual([`${prefix}-0`, `${prefix}-1`]);
    const page3 = await t.api.get(`/api/users?q=${prefix}&limit=2&page=3`, { token: t.adminToken });
    expect(page3.body.map((u: { username: string }) => u.username)).toEqual([`${prefix}-4`]);
    const empty = await t.api.get(`/api/users?q=${prefix}&limit=2&page=9`, { token: t.adminToken });
    expect(empty.body).toEqual([]);
    const butlers = await t.api.get('/api/users?role=BUTLER', { token: t.adminToken });
    expect(butlers.body).toHaveLength(1);
    expect(butlers.body[0]).toMatchObject({ id: 2, username: 'Butler', role: 'BUTLER' });
    for (const [query, error] of [
      ['?role=KING', 'role must be one of ADMIN, MEMBER, AGENT, BUTLER'],
      ['?limit=0', 'limit must be at least 1'],
      ['?limit=-3', 'limit must be at least 1'],
      ['?limit=abc', 'limit must be a number'],
      ['?limit=5000', 'limit must be at most 1000'],
      ['?page=0', 'page must be at least 1'],
    ] as const) {
      const res = await t.api.get(`/api/users${query}`, { token: t.adminToken });
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ error });
    }
  });

  it('shows members themselves and machines, other humans as not found', async () => {
    const me = await t.createMember();
    const other = await t.createMember();
    expect((await t.api.get(`/api/users/${me.id}`, { token: me.token })).body).toMatchObject({ id: me.id, username: me.username });
    expect((await t.api.get('/api/users/2', { token: me.token })).body).toMatchObject({ id: 2, role: 'BUTLER' });
    const hidden = await t.api.get(`/api/users/${other.id}`, { token: me.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'user not found' });
    expect((await t.api.get(`/api/users/${other.id}`, { token: t.adminToken })).status).toBe(200);
    expect((await t.api.get('/api/users/999999', { token: t.adminToken })).status).toBe(404);
    for (const [id, error] of [
      ['abc', 'id must be a number'],
      ['-1', 'id must be at least 1'],
      ['0', 'id must be at least 1'],
      ['1.5', 'id must be an integer'],
    ]) {
      const res = await t.api.get(`/api/users/${id}`, { token: t.adminToken });
      expect(res.status, id).toBe(400);
      expect(res.body).toEqual({ error });
    }
  });

  it('changes a password and a role, and protects the last admin', async () => {
    const member = await t.createMember();
    const res = await t.api.patch(`/api/users/${member.id}`, { password: 'a-new-password' }, { token: t.adminToken });
    expect(res.status).toBe(200);
    expect(await t.login(member.username, 'a-new-password')).toBeTruthy();
    expect((await t.api.patch(`/api/users/${member.id}`, {}, { token: t.adminToken })).status).toBe(400);
    // This hub has exactly one admin.
    expect((await t.api.get('/api/users?role=ADMIN', { token: t.adminToken })).body).toHaveLength(1);
    const demoteSelf = await t.api.patch('/api/users/1', { role: 'MEMBER' }, { token: t.adminToken });
    expect(demoteSelf.status).toBe(409);
    expect(demoteSelf.body).toEqual({ error: 'cannot demote the last admin' });
    // Butler is no human: it gets neither a role nor a password here.
    for (const body of [{ role: 'MEMBER' }, { role: 'ADMIN' }, { password: 'a-password-for-butler' }]) {
      const butlerPatch = await t.api.patch('/api/users/2', body, { token: t.adminToken });
      expect(butlerPatch.status).toBe(400);
      expect(butlerPatch.body).toEqual({ error: 'agents are managed under /api/users/agents' });
    }
    expect((await t.api.post('/api/auth/login', { username: 'Butler', password: 'a-password-for-butler' })).status).toBe(401);
  });

  it('deletes a human, but not oneself or a machine', async () => {
    const member = await t.createMember();
    expect((await t.api.delete(`/api/users/${member.id}`, { token: t.adminToken })).body).toEqual({ ok: true });
    expect((await t.api.get(`/api/users/${member.id}`, { token: t.adminToken })).status).toBe(404);
    expect((await t.api.delete(`/api/users/${member.id}`, { token: t.adminToken })).status).toBe(404);
    const self = await t.api.delete('/api/users/1', { token: t.adminToken });
    expect(self.status).toBe(409);
    expect(self.body).toEqual({ error: 'you cannot delete your own account' });
    expect((await t.api.delete('/api/users/2', { token: t.adminToken })).status).toBe(400);
  });
});

describeEachDriver('users: the hub keeps an admin', (driver) => {
  let t: TestHub;
  let other: { id: number; username: string; token: string };
  const admins = async () =>
    (await t.hub.store.db.selectFrom('users').select('id').where('role', '=', 'ADMIN').orderBy('id').execute()).map((r) => Number(r.id));
  beforeAll(async () => {
    t = await startTestHub(driver);
    other = await t.createMember({ role: 'ADMIN' });
  });
  afterAll(() => t.stop());

  it('two admins demoting each other at the same moment: one wins, the hub keeps one admin', async () => {
    expect(await admins()).toEqual([1, other.id]);
    const [byFirst, byOther] = await Promise.all([
      t.api.patch(`/api/users/${other.id}`, { role: 'MEMBER' }, { token: t.adminToken }),
      t.api.patch('/api/users/1', { role: 'MEMBER' }, { token: other.token }),
    ]);
    const statuses = [byFirst.status, byOther.status];
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    const loser = byFirst.status === 200 ? byOther : byFirst;
    // The loser was demoted first (403), or finds the target is now the last admin (409).
    expect([403, 409]).toContain(loser.status);
    expect(loser.body).toEqual(loser.status === 403 ? { error: 'admin access required' } : { error: 'cannot demote the last admin' });
    expect(await admins()).toHaveLength(1);

    // Back to two admins for the next test.
    const [survivorToken, demotedId] = byFirst.status === 200 ? [t.adminToken, other.id] : [other.token, 1];
    expect((await t.api.patch(`/api/users/${demotedId}`, { role: 'ADMIN' }, { token: survivorToken })).status).toBe(200);
  });

  it('two admins deleting each other at the same moment: one wins, the hub keeps one admin', async () => {
    expect(await admins()).toEqual([1, other.id]);
    const [byFirst, byOther] = await Promise.all([
      t.api.delete(`/api/users/${other.id}`, { token: t.adminToken }),
      t.api.delete('/api/users/1', { token: other.token }),
    ]);
    expect([byFirst.status, byOther.status].filter((s) => s === 200)).toHaveLength(1);
    const loser = byFirst.status === 200 ? byOther : byFirst;
    // The loser was already deleted (401), or finds the target is now the last admin (409).
    expect([401, 403, 409]).toContain(loser.status);
    expect(await admins()).toHaveLength(1);
  });
});
