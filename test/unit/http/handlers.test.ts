// Handlers get the parsed input (coerced, defaulted, trimmed, renamed) and the authenticated caller,
// and their answers go out with the status and headers the route documents; checked over the HTTP
// app alone, with fake services recording what they were called with.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Errors, INTERNAL_ERROR_BODY } from '../../../src/errors.js';
import { StoreUnavailableError } from '../../../src/store/errors.js';
import { startFakeApp, TOKENS, USERS, type FakeApp } from '../../helpers/fakeApp.js';

describe('HTTP handlers (fake services)', () => {
  let app: FakeApp;
  beforeAll(async () => {
    app = await startFakeApp();
  });
  afterAll(() => app.stop());
  beforeEach(() => app.reset());

  it('pages agents with the query coerced and defaulted, and says the total in X-Total-Count', async () => {
    const res = await app.api.get('/api/users/agents?limit=5&q=bo&exclude_role=', { token: TOKENS.agent });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([{ id: 1 }]);
    expect(res.headers.get('x-total-count')).toBe('1');
    expect(app.callsOf('agents.list')).toEqual([[{ excludeRole: undefined, q: 'bo', page: 1, limit: 5 }]]);
  });

  it('lists messages for the caller with the filters parsed', async () => {
    const res = await app.api.get('/api/messages?before_id=10&level=ERROR', { token: TOKENS.member });
    expect(res.status).toBe(200);
    const [[caller, query]] = app.callsOf('messages.list') as [[unknown, unknown]];
    expect(caller).toEqual(USERS.member);
    expect(query).toMatchObject({ before_id: 10, level: 'ERROR', offset: 0, limit: 50 });
  });

  it('ingests either form of a message as the caller, with 201', async () => {
    expect((await app.api.post('/api/messages', { level: 'INFO', content: 'disk ok' }, { token: TOKENS.agent })).status).toBe(201);
    const typed = { type: 'SYSTEM_LOG', payload: { level: 'ERROR', content: 'disk full' }, target_id: '3' };
    expect(await app.api.post('/api/messages', typed, { token: TOKENS.agent })).toMatchObject({ status: 201, body: { id: 7 } });
    expect(app.callsOf('messages.ingest')).toEqual([
      [USERS.agent, { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'disk ok' }, agent_id: undefined }],
      [USERS.agent, { type: 'SYSTEM_LOG', payload: { level: 'ERROR', content: 'disk full' }, target_id: 3, agent_id: undefined }],
    ]);
  });

  it('creates a user with the defaults applied and answers the user view with 201', async () => {
    const res = await app.api.post('/api/users', { username: '  newbie  ' }, { token: TOKENS.admin });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: USERS.member.id, username: USERS.member.username, role: 'MEMBER', online: false });
    expect(app.callsOf('users.createHuman')).toEqual([[{ username: 'newbie', role: 'MEMBER' }]]);
  });

  it('passes the id param as a number and the caller to user changes', async () => {
    expect((await app.api.patch('/api/users/12', { role: 'ADMIN' }, { token: TOKENS.admin })).status).toBe(200);
    expect(await app.api.delete('/api/users/12', { token: TOKENS.admin })).toMatchObject({ status: 200, body: { ok: true } });
    expect(app.callsOf('users.update')).toEqual([[12, { role: 'ADMIN' }, USERS.admin]]);
    expect(app.callsOf('users.deleteHuman')).toEqual([[12, USERS.admin]]);
  });

  it('rotates and deletes agents by id', async () => {
    expect(await app.api.patch('/api/users/agents/4/token', {}, { token: TOKENS.admin })).toMatchObject({ status: 200, body: { api_token: 'new' } });
    expect(await app.api.delete('/api/users/agents/4', { token: TOKENS.admin })).toMatchObject({ status: 200, body: { ok: true } });
    expect(app.callsOf('agents.rotateToken')).toEqual([[4, undefined]]);
    expect(app.callsOf('agents.delete')).toEqual([[4]]);
  });

  it('logs in with the client address, and registers with 201', async () => {
    expect((await app.api.post('/api/auth/login', { username: 'admin', password: 'admin-password' })).status).toBe(200);
    const [[username, password, address]] = app.callsOf('auth.login') as [[string, string, string]];
    expect([username, password]).toEqual(['admin', 'admin-password']);
    expect(address).toMatch(/127\.0\.0\.1/);
    expect((await app.api.post('/api/auth/register', { username: 'someone', password: 'long-enough' })).status).toBe(201);
    expect(await app.api.get('/api/auth/options')).toMatchObject({ status: 200, body: { self_registration: true } });
  });

  it('reads connector bodies with camelCase keys renamed, and the expected version apart from the fields', async () => {
    expect((await app.api.post('/api/integrations/feishu', { appId: 'cli_a1b2c3d4e5f60718' }, { token: TOKENS.admin })).status).toBe(201);
    expect((await app.api.patch('/api/integrations/chatplatform/3', { appId: 'cli_a1b2c3d4e5f60718', version: 2 }, { token: TOKENS.admin })).status).toBe(200);
    expect((await app.api.patch('/api/integrations/chatplatform/3/enable', { enabled: false }, { token: TOKENS.admin })).status).toBe(200);
    expect((await app.api.get('/api/integrations/feishu/3/logs?limit=5', { token: TOKENS.admin })).status).toBe(200);
    const [[created]] = app.callsOf('connector.create') as [[Record<string, unknown>]];
    expect(created).toMatchObject({ app_id: 'cli_a1b2c3d4e5f60718' });
    expect(created).not.toHaveProperty('appId');
    const [[id, fields, version]] = app.callsOf('connector.update') as [[number, Record<string, unknown>, number]];
    expect([id, version]).toEqual([3, 2]);
    expect(fields).toMatchObject({ app_id: 'cli_a1b2c3d4e5f60718' });
    expect(fields).not.toHaveProperty('version');
    expect(app.callsOf('connector.setEnabled')).toEqual([[3, false]]);
    expect(app.callsOf('connector.logs')).toEqual([[3, { cursor: undefined, limit: 5 }]]);
  });

  it('answers a mock chat row with 201, or 200 when its local_id made one already', async () => {
    const body = { sender_username: 'admin', receiver_username: 'agent-1', content: 'hello', local_id: 'l-1' };
    expect(await app.api.post('/api/dev/mock/chat', body, { token: TOKENS.admin })).toMatchObject({ status: 201, body: { id: 9 } });
    app.reply('devMock.insertChat', () => ({ id: 9, duplicate: true }));
    expect(await app.api.post('/api/dev/mock/chat', body, { token: TOKENS.admin })).toMatchObject({ status: 200, body: { id: 9 } });
    expect(app.callsOf('devMock.insertChat')[0]).toEqual([{ ...body, type: 'CHAT' }]);
  });

  it('answers authorization requests as the caller, with the input trimmed', async () => {
    expect((await app.api.post('/api/chat/auth/response', { action_id: '  act-1 ', approved: false }, { token: TOKENS.member })).status).toBe(200);
    const [[principal, input]] = app.callsOf('authorizations.respond') as [[Record<string, unknown>, unknown]];
    expect(principal).toMatchObject({ id: USERS.member.id, role: 'MEMBER' });
    expect(input).toEqual({ action_id: 'act-1', approved: false });
  });

  it('passes thread ids and pages to the chat service with the caller', async () => {
    expect((await app.api.get('/api/chat/threads/5/messages?before_id=20', { token: TOKENS.member })).status).toBe(200);
    expect((await app.api.post('/api/chat/threads', { peer_id: '4' }, { token: TOKENS.member })).status).toBe(201);
    expect(app.callsOf('chat.threadMessages')).toEqual([[USERS.member, 5, { before_id: 20, limit: 100 }]]);
    expect(app.callsOf('chat.createThread')).toEqual([[USERS.member, { peer_id: 4 }]]);
  });

  it('answers an actor snapshot, or 404 naming the actor', async () => {
    expect(await app.api.get('/api/admin/actors/router', { token: TOKENS.admin })).toMatchObject({ status: 200, body: { id: 'router' } });
    expect(await app.api.get('/api/admin/actors/nobody', { token: TOKENS.admin })).toMatchObject({
      status: 404,
      body: { error: expect.stringContaining('actor nobody') },
    });
    expect(await app.api.get('/api/admin/actors?user_id=3&limit=2', { token: TOKENS.admin })).toMatchObject({ status: 200 });
    expect(app.callsOf('inspection.summary')).toEqual([[{ userId: 3, limit: 2 }]]);
  });

  it("answers a service's refusal with its status and text, and anything else with a bare 500", async () => {
    app.reply('agents.butler', () => {
      throw Errors.notFound('user');
    });
    const refused = await app.api.get('/api/users/butler', { token: TOKENS.member });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: expect.stringContaining('user') });
    app.reply('agents.butler', () => {
      throw new Error('the disk caught fire');
    });
    expect(await app.api.get('/api/users/butler', { token: TOKENS.member })).toMatchObject({ status: 500, body: INTERNAL_ERROR_BODY });
  });

  it('answers the store being away with 503 and Retry-After, never 500', async () => {
    app.reply('agents.butler', () => {
      throw new StoreUnavailableError('could not get a PostgreSQL connection: timeout exceeded when trying to connect');
    });
    const res = await app.api.get('/api/users/butler', { token: TOKENS.member });
    expect(res).toMatchObject({ status: 503, body: { error: 'the store is unavailable; try again shortly' } });
    expect(res.headers.get('retry-after')).toBe('5');
    app.reply('agents.butler', () => {
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    });
    expect((await app.api.get('/api/users/butler', { token: TOKENS.member })).status).toBe(503);
  });

  it('answers the probes without credentials', async () => {
    expect(await app.api.get('/api/ping')).toMatchObject({ status: 200, body: { message: 'pong' } });
    expect(await app.api.get('/api/health')).toMatchObject({ status: 200, body: { status: 'ok', uptime_seconds: expect.any(Number) } });
    expect(await app.api.get('/api/ready')).toMatchObject({ status: 200, body: { status: 'ready' } });
    const doc = await app.api.get('/api/openapi.json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/api/users/{id}');
  });
});
