// Login, registration and bearer credentials: every documented 401 and 403, and the role being
// re-checked against the store on each request.
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, uniqueName, type TestHub } from '../helpers/hub.js';
import { apiClientFrom } from '../helpers/http.js';

describeEachDriver('auth', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver);
  });
  afterAll(() => t.stop());

  it('logs a human in with a JWT and the user, never the password', async () => {
    const res = await t.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body.user).toMatchObject({ id: 1, username: 'admin', role: 'ADMIN', actor_type: 'HUMAN', online: false });
    expect(JSON.stringify(res.body)).not.toMatch(/password/);
    const claims = jwt.verify(res.body.token, t.jwtSecret) as jwt.JwtPayload;
    expect(claims.sub).toBe('1');
    expect(claims.exp! - claims.iat!).toBe(24 * 3600);
  });

  it('refuses wrong passwords, unknown users and machines with 401 invalid credentials', async () => {
    const agent = await t.createAgent();
    for (const body of [
      { username: 'admin', password: 'wrong-password' },
      { username: 'nobody-here', password: 'whatever1' },
      { username: 'Butler', password: 'anything1' },
      { username: agent.username, password: agent.api_token },
    ]) {
      const res = await t.api.post('/api/auth/login', body);
      expect(res.status, body.username).toBe(401);
      expect(res.body).toEqual({ error: 'invalid credentials' });
    }
  });

  it('answers a login without fields with 400 naming the field', async () => {
    expect((await t.api.post('/api/auth/login', {})).body).toEqual({ error: 'username is required; password is required' });
    const res = await t.api.post('/api/auth/login', { username: 'admin' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'password is required' });
    expect((await t.api.post('/api/auth/login', { username: 5, password: 'x' })).body).toEqual({ error: 'username must be a string' });
  });

  it('refuses self-registration when it is not enabled', async () => {
    const res = await t.api.post('/api/auth/register', { username: uniqueName('self'), password: 'long-enough' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'self-registration is disabled on this hub' });
    expect((await t.api.get('/api/auth/options')).body).toEqual({ self_registration: false, agent_reply_timeout_seconds: 60 });
  });

  it('answers each bearer problem with its own 401', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{}, 'authorization header required'],
      [{ Authorization: t.adminToken }, 'invalid authorization header format'],
      [{ Authorization: 'Basic YWRtaW46YWRtaW4=' }, 'invalid authorization header format'],
      [{ Authorization: 'Bearer not-a-token' }, 'invalid token'],
      [{ Authorization: `Bearer ${jwt.sign({ username: 'admin' }, 'another-secret-of-32-characters!!', { subject: '1' })}` }, 'invalid token'],
      [{ Authorization: `Bearer ${jwt.sign({ username: 'admin', exp: Math.floor(Date.now() / 1000) - 10 }, t.jwtSecret, { subject: '1' })}` }, 'invalid token'],
    ];
    for (const [headers, error] of cases) {
      const res = await t.api.get('/api/users/agents', { headers });
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body).toEqual({ error });
    }
  });

  it('accepts the bearer scheme in any case', async () => {
    const res = await t.api.get('/api/users/agents', { headers: { Authorization: `bEaReR ${t.adminToken}` } });
    expect(res.status).toBe(200);
  });

  it('stops honouring the token of a deleted user and the admin rights of a demoted one', async () => {
    const member = await t.createMember({ role: 'ADMIN' });
    expect((await t.api.get('/api/users', { token: member.token })).status).toBe(200);
    const demote = await t.api.patch(`/api/users/${member.id}`, { role: 'MEMBER' }, { token: t.adminToken });
    expect(demote.status).toBe(200);
    const after = await t.api.get('/api/users', { token: member.token });
    expect(after.status).toBe(403);
    expect(after.body).toEqual({ error: 'admin access required' });
    expect((await t.api.delete(`/api/users/${member.id}`, { token: t.adminToken })).status).toBe(200);
    const gone = await t.api.get('/api/users/agents', { token: member.token });
    expect(gone.status).toBe(401);
    expect(gone.body).toEqual({ error: 'invalid token' });
  });

  it('lets an agent call authenticated routes with its api_token, but not admin ones', async () => {
    const agent = await t.createAgent();
    const list = await t.api.get('/api/users/agents', { token: agent.api_token });
    expect(list.status).toBe(200);
    const admin = await t.api.post('/api/users/agents', { username: uniqueName('x') }, { token: agent.api_token });
    expect(admin.status).toBe(403);
    const rotated = await t.api.patch(`/api/users/agents/${agent.id}/token`, {}, { token: t.adminToken });
    expect(rotated.status).toBe(200);
    expect((await t.api.get('/api/users/agents', { token: agent.api_token })).status).toBe(401);
    expect((await t.api.get('/api/users/agents', { token: rotated.body.api_token })).status).toBe(200);
  });
});

describeEachDriver('self-registration', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, { ALLOW_SELF_REGISTRATION: 'true', BUTLER_AGENT_REPLY_TIMEOUT: '2m' });
  });
  afterAll(() => t.stop());

  it('creates a MEMBER with a session when enabled, and refuses duplicates and weak input', async () => {
    // The options also say how long Butler waits for an agent's answer (BUTLER_AGENT_REPLY_TIMEOUT).
    expect((await t.api.get('/api/auth/options')).body).toEqual({ self_registration: true, agent_reply_timeout_seconds: 120 });
    const username = uniqueName('self');
    const res = await t.api.post('/api/auth/register', { username, password: 'long-enough' });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ username, role: 'MEMBER', actor_type: 'HUMAN' });
    expect((await t.api.get('/api/users/agents', { token: res.body.token })).status).toBe(200);
    expect(await t.login(username, 'long-enough')).toBeTruthy();

    const dup = await t.api.post('/api/auth/register', { username, password: 'long-enough' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: 'username already exists' });
    const weak = await t.api.post('/api/auth/register', { username: uniqueName('self'), password: 'short' });
    expect(weak.status).toBe(400);
    expect(weak.body).toEqual({ error: 'password must be at least 8 characters' });
    const butler = await t.api.post('/api/auth/register', { username: 'Butler', password: 'long-enough' });
    expect(butler.status).toBe(409);
  });
});

describeEachDriver('failed-login throttle', (driver) => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(driver, { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW: '10m' });
  });
  afterAll(() => t.stop());

  it('refuses a name with 429 and Retry-After after too many failures, even with the right password', async () => {
    const member = await t.createMember();
    for (let i = 0; i < 3; i++) {
      expect((await t.api.post('/api/auth/login', { username: member.username, password: 'wrong-password' })).status).toBe(401);
    }
    const blocked = await t.api.post('/api/auth/login', { username: member.username, password: 'member-password' });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^too many failed logins; try again in \d+ s$/);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // Other names from the same address are not affected.
    expect((await t.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);
  });

  it('forgets earlier failures after a successful login', async () => {
    const member = await t.createMember();
    const attempt = (password: string) => t.api.post('/api/auth/login', { username: member.username, password });
    expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt('member-password')).status).toBe(200);
    expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt('wrong-password')).status).toBe(401);
    expect((await attempt('member-password')).status).toBe(200);
  });

  it('counts 100 guesses sent at once before hashing any: no more than the budget answered 401, the rest 429', async () => {
    const member = await t.createMember();
    const from = apiClientFrom(t.url, '127.0.0.5');
    const guess = (password: string) => from.post('/api/auth/login', { username: member.username, password });
    const burst = (await Promise.all(Array.from({ length: 100 }, () => guess('wrong-password')))).map((r) => r.status);
    expect(burst.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    const wrongInBurst = burst.filter((status) => status === 401).length;
    expect(wrongInBurst).toBeGreaterThan(0);
    expect(wrongInBurst).toBeLessThanOrEqual(3);
    // The guesses left after the burst, one at a time: with the burst's, exactly the budget.
    let wrongAfter = 0;
    for (let status = (await guess('wrong-password')).status; status !== 429; status = (await guess('wrong-password')).status) {
      expect(status).toBe(401);
      wrongAfter += 1;
      expect(wrongAfter).toBeLessThanOrEqual(3);
    }
    expect(wrongInBurst + wrongAfter).toBe(3);
    // Then even the right password is refused, without saying whether it was right.
    const right = await guess('member-password');
    expect(right.status).toBe(429);
    expect(right.body.error).toMatch(/^too many failed logins; try again in \d+ s$/);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('locks a name guessed from many addresses once the per-account cap is reached, even for the right password', async () => {
    // LOGIN_MAX_FAILURES_PER_ACCOUNT is unset: five times LOGIN_MAX_FAILURES, 15 here.
    const member = await t.createMember();
    for (let address = 1; address <= 5; address++) {
      const from = apiClientFrom(t.url, `127.0.1.${address}`);
      for (let i = 0; i < 3; i++) expect((await from.post('/api/auth/login', { username: member.username, password: 'wrong-password' })).status).toBe(401);
    }
    const locked = await apiClientFrom(t.url, '127.0.1.6').post('/api/auth/login', { username: member.username, password: 'member-password' });
    expect(locked.status).toBe(429);
    expect(locked.body.error).toMatch(/^too many failed logins for this name from all addresses; its logins are locked for \d+ s$/);
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    // A name nobody guessed still logs in from those addresses.
    expect((await apiClientFrom(t.url, '127.0.1.1').post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);
  });
});

describeEachDriver('password spraying', (driver) => {
  let t: TestHub;
  let member: { id: number; username: string };
  let sprayer: { id: number; username: string };
  beforeAll(async () => {
    // The defaults: 10 failures per name and address, 30 per address, in 15 minutes. The users are
    // made first: creating one logs in from 127.0.0.1, which the first test shuts out.
    t = await startTestHub(driver);
    [member, sprayer] = await Promise.all([t.createMember(), t.createMember()]);
  });
  afterAll(() => t.stop());

  it('refuses one address trying many names with 429 and Retry-After; the user whose name it tried logs in from elsewhere', async () => {
    const names = [member.username, ...Array.from({ length: 39 }, (_, i) => uniqueName(`sprayed-${i}`))];
    const answers = [];
    for (const username of names) answers.push(await t.api.post('/api/auth/login', { username, password: 'Summer2024!' }));
    expect(answers.map((r) => r.status)).toEqual([...Array<number>(30).fill(401), ...Array<number>(10).fill(429)]);
    expect(answers[30]!.body.error).toMatch(/^too many failed logins; try again in \d+ s$/);
    const retryAfter = Number(answers[30]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(890);
    expect(retryAfter).toBeLessThanOrEqual(900);

    // That address is shut out, even with the right password...
    expect((await t.api.post('/api/auth/login', { username: member.username, password: 'member-password' })).status).toBe(429);
    // ...while the user logs in from their own, and another address still gets plain answers.
    const own = await apiClientFrom(t.url, '127.0.0.2').post('/api/auth/login', { username: member.username, password: 'member-password' });
    expect(own.status).toBe(200);
    expect(own.body.user).toMatchObject({ id: member.id, username: member.username });
    const other = await apiClientFrom(t.url, '127.0.0.3').post('/api/auth/login', { username: 'admin', password: 'wrong-password' });
    expect(other.status).toBe(401);
  });

  it('does not refill the address budget when one of its logins succeeds', async () => {
    const from = apiClientFrom(t.url, '127.0.0.4');
    for (let i = 0; i < 29; i++) expect((await from.post('/api/auth/login', { username: uniqueName('guess'), password: 'Summer2024!' })).status).toBe(401);
    // The sprayer's own account logs in fine, but that does not buy more guesses.
    expect((await from.post('/api/auth/login', { username: sprayer.username, password: 'member-password' })).status).toBe(200);
    expect((await from.post('/api/auth/login', { username: uniqueName('guess'), password: 'Summer2024!' })).status).toBe(401);
    expect((await from.post('/api/auth/login', { username: uniqueName('guess'), password: 'Summer2024!' })).status).toBe(429);
  });
});
