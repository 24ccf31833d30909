// Chat over HTTP on both stores: history between two users (order, paging without gaps, bounds),
// a human's conversation threads (default thread, create, patch, archive, order, ownership), thread
// messages, and the admin-only Butler↔agent history. Rows go in through the dev mock endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eachLimited } from '../helpers/limited.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { postAsButler } from '../helpers/hubClients.js';
import { CHAT_ACCESS_ROUTES, concrete } from '../helpers/routes.js';

interface Member {
  id: number;
  username: string;
  token: string;
}
interface Agent {
  id: number;
  username: string;
  api_token: string;
}

describeEachDriver('chat', (driver) => {
  let t: TestHub;
  let butler: { id: number; username: string };
  let alice: Member;
  let bob: Member;
  let x: Agent;
  let y: Agent;

  beforeAll(async () => {
    t = await startTestHub(driver);
    [alice, bob, x, y] = await Promise.all([t.createMember(), t.createMember(), t.createAgent(), t.createAgent()]);
    butler = (await t.api.get('/api/users/butler', { token: t.adminToken })).body;
  });
  afterAll(() => t.stop());

  /** Stores one chat row through the real API and returns its id. */
  async function say(from: string, to: string, content: string, extra: Record<string, unknown> = {}): Promise<number> {
    const res = await t.api.post('/api/dev/mock/chat', { sender_username: from, receiver_username: to, content, ...extra }, { token: t.adminToken });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id as number;
  }

  /** Walks every page of `path` (newest page first, each oldest first) and returns the ids oldest first. */
  async function allPages(path: string, token: string, limit: number): Promise<number[]> {
    const pages: number[][] = [];
    let beforeId: number | undefined;
    for (;;) {
      const query = beforeId === undefined ? `limit=${limit}` : `limit=${limit}&before_id=${beforeId}`;
      const res = await t.api.get(`${path}?${query}`, { token });
      expect(res.status).toBe(200);
      const ids = (res.body as Array<{ id: number }>).map((m) => m.id);
      if (ids.length === 0) break;
      expect(ids.length).toBeLessThanOrEqual(limit);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      pages.unshift(ids);
      beforeId = ids[0];
    }
    return pages.flat();
  }

  describe('GET /api/chat/history/:peer_id', () => {
    let conversation: number[];
    beforeAll(async () => {
      conversation = [];
      for (let i = 0; i < 7; i++) {
        conversation.push(i % 2 === 0 ? await say(alice.username, x.username, `to x ${i}`) : await say(x.username, alice.username, `to alice ${i}`));
        // Noise between the same ids: other pairs, and telemetry aimed at alice.
        await say(bob.username, x.username, `bob ${i}`);
        await say(alice.username, y.username, `alice to y ${i}`);
      }
      conversation.push(await say(x.username, alice.username, '{"action":"deploy"}', { type: 'AUTH_REQUEST' }));
      await say(x.username, bob.username, 'x to bob');
      const telemetry = await t.api.post(
        '/api/messages',
        { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'log' }, target_id: alice.id },
        { token: x.api_token },
      );
      expect(telemetry.status).toBe(201);
    });

    it('returns the chat rows of both directions, oldest first, and nothing of other pairs', async () => {
      const res = await t.api.get(`/api/chat/history/${x.id}`, { token: alice.token });
      expect(res.status).toBe(200);
      expect(res.body.map((m: { id: number }) => m.id)).toEqual(conversation);
      expect(res.body[0]).toMatchObject({
        id: conversation[0],
        local_id: null,
        sender_id: alice.id,
        sender_name: alice.username,
        sender_role: 'MEMBER',
        receiver_id: x.id,
        target_id: x.id,
        type: 'CHAT',
        payload: 'to x 0',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      // Only ChatMessage fields (wire.md §2); conversation_id and stream_id appear when the row has them.
      const fields = [
        'id',
        'local_id',
        'conversation_id',
        'sender_id',
        'sender_name',
        'sender_role',
        'receiver_id',
        'target_id',
        'type',
        'payload',
        'stream_id',
        'timestamp',
      ];
      for (const message of res.body) expect(fields).toEqual(expect.arrayContaining(Object.keys(message)));
      expect(res.body[1]).toMatchObject({ sender_id: x.id, sender_role: 'AGENT', receiver_id: alice.id, payload: 'to alice 1' });
      expect(res.body.at(-1)).toMatchObject({ type: 'AUTH_REQUEST', payload: '{"action":"deploy"}' });
    });

    it('shows the same conversation to the peer (an agent token)', async () => {
      const res = await t.api.get(`/api/chat/history/${alice.id}`, { token: x.api_token });
      expect(res.status).toBe(200);
      expect(res.body.map((m: { id: number }) => m.id)).toEqual(conversation);
    });

    it('returns the newest `limit` rows, and pages back with before_id without a gap or a repeat', async () => {
      const newest = await t.api.get(`/api/chat/history/${x.id}?limit=3`, { token: alice.token });
      expect(newest.body.map((m: { id: number }) => m.id)).toEqual(conversation.slice(-3));
      for (const limit of [1, 3, 5]) {
        expect(await allPages(`/api/chat/history/${x.id}`, alice.token, limit)).toEqual(conversation);
      }
      const below = await t.api.get(`/api/chat/history/${x.id}?before_id=${conversation[3]}&limit=2`, { token: alice.token });
      expect(below.body.map((m: { id: number }) => m.id)).toEqual(conversation.slice(1, 3));
    });

    it('lists a conversation with oneself once', async () => {
      const id = await say(bob.username, bob.username, 'note to self');
      const res = await t.api.get(`/api/chat/history/${bob.id}`, { token: bob.token });
      expect(res.body.map((m: { id: number }) => m.id)).toEqual([id]);
    });

    it('answers [] when there is no conversation, and 404 for an unknown peer', async () => {
      const empty = await t.api.get(`/api/chat/history/${butler.id}`, { token: bob.token });
      expect(empty).toMatchObject({ status: 200, body: [] });
      const unknown = await t.api.get('/api/chat/history/999999', { token: alice.token });
      expect(unknown).toMatchObject({ status: 404, body: { error: 'user not found' } });
    });

    it('refuses bad paging with 400 naming the field', async () => {
      const cases: Array<[string, string]> = [
        [`${x.id}?limit=0`, 'limit must be at least 1'],
        [`${x.id}?limit=501`, 'limit must be at most 500'],
        [`${x.id}?limit=ten`, 'limit must be a number'],
        [`${x.id}?limit=2.5`, 'limit must be an integer'],
        [`${x.id}?before_id=0`, 'before_id must be at least 1'],
        ['abc', 'peer_id must be a number'],
        ['0', 'peer_id must be at least 1'],
      ];
      for (const [suffix, error] of cases) {
        const res = await t.api.get(`/api/chat/history/${suffix}`, { token: alice.token });
        expect(res, suffix).toMatchObject({ status: 400, body: { error } });
      }
      expect((await t.api.get(`/api/chat/history/${x.id}?limit=500`, { token: alice.token })).status).toBe(200);
    });
  });

  describe('conversation threads', () => {
    it("makes no thread on a read: a fresh member's list with a peer is [] until they chat", async () => {
      const erin = await t.createMember();
      for (const query of [`peer_id=${x.id}`, `peer_id=${x.id}&channel_kind=agent_direct`, `peer_id=${butler.id}`, '']) {
        expect(await t.api.get(`/api/chat/threads?${query}`, { token: erin.token }), query).toMatchObject({ status: 200, body: [] });
      }
      const rows = await t.hub.store.db.selectFrom('conversation_threads').select('id').where('owner_user_id', '=', erin.id).execute();
      expect(rows).toEqual([]);
    });

    it('makes the default thread on the first chat message, titled as the older hub does', async () => {
      const erin = await t.createMember();
      const first = await say(erin.username, x.username, 'hello x');
      const listed = await t.api.get(`/api/chat/threads?peer_id=${x.id}`, { token: erin.token });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([
        {
          id: expect.any(Number),
          owner_user_id: erin.id,
          peer_user_id: x.id,
          channel_kind: 'agent_direct',
          title: `${x.username} chat`,
          summary: '',
          is_pinned: false,
          is_default: true,
          archived_at: null,
          last_message_at: expect.any(String),
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ]);
      const inThread = await t.api.get(`/api/chat/threads/${listed.body[0].id}/messages`, { token: erin.token });
      expect(inThread.body.map((m: { id: number }) => m.id)).toEqual([first]);
      // The agent's answer goes to the same thread, and no second default thread appears.
      await say(x.username, erin.username, 'hello erin');
      const again = await t.api.get(`/api/chat/threads?peer_id=${x.id}&channel_kind=agent_direct`, { token: erin.token });
      expect(again.body.map((th: { id: number }) => th.id)).toEqual([listed.body[0].id]);
      await say(erin.username, 'Butler', 'hello Butler');
      const withButler = await t.api.get(`/api/chat/threads?peer_id=${butler.id}`, { token: erin.token });
      expect(withButler.body).toMatchObject([{ peer_user_id: butler.id, channel_kind: 'butler_direct', is_default: true, title: 'Butler' }]);
      expect((await t.api.get('/api/chat/threads', { token: erin.token })).body).toHaveLength(2);
    });

    it('makes one default thread when first messages race', async () => {
      const dave = await t.createMember();
      await Promise.all(Array.from({ length: 6 }, (_, i) => say(dave.username, x.username, `race ${i}`)));
      const listed = await t.api.get(`/api/chat/threads?peer_id=${x.id}`, { token: dave.token });
      expect(listed.body).toMatchObject([{ is_default: true }]);
      const messages = await t.api.get(`/api/chat/threads/${listed.body[0].id}/messages`, { token: dave.token });
      expect(messages.body).toHaveLength(6);
    });

    it("lists only the caller's threads, filtered by peer and kind", async () => {
      await say(alice.username, 'Butler', 'hello Butler');
      const mine = await t.api.get('/api/chat/threads', { token: alice.token });
      expect(mine.body.length).toBeGreaterThanOrEqual(2);
      expect(mine.body.every((th: { owner_user_id: number }) => th.owner_user_id === alice.id)).toBe(true);
      const butlerKind = await t.api.get('/api/chat/threads?channel_kind=butler_direct', { token: alice.token });
      expect(butlerKind.body.length).toBeGreaterThan(0);
      expect(butlerKind.body.every((th: { channel_kind: string }) => th.channel_kind === 'butler_direct')).toBe(true);
      const fresh = await t.createMember();
      expect((await t.api.get('/api/chat/threads', { token: fresh.token })).body).toEqual([]);
    });

    it('refuses a listing for a peer that is missing, human, or of the other kind', async () => {
      const cases: Array<[string, number, string]> = [
        ['peer_id=999999', 404, 'user not found'],
        [`peer_id=${bob.id}`, 400, 'peer_id must name an agent or Butler: threads are conversations with a machine peer'],
        [`peer_id=${x.id}&channel_kind=butler_direct`, 400, "channel_kind butler_direct does not match the peer's role AGENT (expected agent_direct)"],
        ['channel_kind=group', 400, 'channel_kind must be one of butler_direct, agent_direct'],
        ['peer_id=x', 400, 'peer_id must be a number'],
        ['include_archived=maybe', 400, 'include_archived must be one of 0, 1, true, false'],
      ];
      for (const [query, status, error] of cases) {
        const res = await t.api.get(`/api/chat/threads?${query}`, { token: alice.token });
        expect(res, query).toMatchObject({ status, body: { error } });
      }
    });

    it('creates further threads (never default), with a trimmed or default title', async () => {
      const named = await t.api.post('/api/chat/threads', { peer_id: x.id, title: '  Release plan  ' }, { token: alice.token });
      expect(named.status).toBe(201);
      expect(named.body).toMatchObject({
        owner_user_id: alice.id,
        peer_user_id: x.id,
        channel_kind: 'agent_direct',
        title: 'Release plan',
        is_default: false,
        is_pinned: false,
      });
      const plain = await t.api.post('/api/chat/threads', { peer_id: butler.id, channel_kind: 'butler_direct' }, { token: alice.token });
      expect(plain.status).toBe(201);
      expect(plain.body).toMatchObject({ channel_kind: 'butler_direct', title: 'Butler', is_default: false });
      const untitled = await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token });
      expect(untitled.body).toMatchObject({ title: `${x.username} chat`, is_default: false });
      const listed = await t.api.get(`/api/chat/threads?peer_id=${x.id}`, { token: alice.token });
      expect(listed.body.map((th: { id: number }) => th.id)).toContain(named.body.id);
      expect(listed.body.filter((th: { is_default: boolean }) => th.is_default)).toHaveLength(1);
    });

    it('refuses a bad new thread with 400 naming the field, or 404 for an unknown peer', async () => {
      const cases: Array<[unknown, number, string]> = [
        [{}, 400, 'peer_id is required'],
        [{ peer_id: 'two' }, 400, 'peer_id must be a number'],
        [{ peer_id: x.id, title: '   ' }, 400, 'title must not be empty'],
        [{ peer_id: x.id, title: 't'.repeat(201) }, 400, 'title must be at most 200 characters'],
        [{ peer_id: x.id, channel_kind: 'group' }, 400, 'channel_kind must be one of butler_direct, agent_direct'],
        [{ peer_id: x.id, channel_kind: 'butler_direct' }, 400, "channel_kind butler_direct does not match the peer's role AGENT (expected agent_direct)"],
        [{ peer_id: bob.id }, 400, 'peer_id must name an agent or Butler: threads are conversations with a machine peer'],
        [{ peer_id: 999999 }, 404, 'user not found'],
      ];
      for (const [body, status, error] of cases) {
        const res = await t.api.post('/api/chat/threads', body, { token: alice.token });
        expect(res, JSON.stringify(body)).toMatchObject({ status, body: { error } });
      }
      const array = await t.api.post('/api/chat/threads', [], { token: alice.token });
      expect(array).toMatchObject({ status: 400, body: { error: 'request body must be a JSON object' } });
    });

    it('renames, summarises, pins, archives and restores a thread', async () => {
      const created = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      const patched = await t.api.patch(
        `/api/chat/threads/${created.id}`,
        { title: ' Incident ', summary: 'db failover', is_pinned: true },
        { token: alice.token },
      );
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        id: created.id,
        title: 'Incident',
        summary: 'db failover',
        is_pinned: true,
        archived_at: null,
        created_at: created.created_at,
      });
      expect(patched.body.updated_at >= created.updated_at).toBe(true);

      const archived = await t.api.patch(`/api/chat/threads/${created.id}`, { is_archived: true }, { token: alice.token });
      expect(archived.body.archived_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      const again = await t.api.patch(`/api/chat/threads/${created.id}`, { is_archived: true }, { token: alice.token });
      expect(again.body.archived_at).toBe(archived.body.archived_at);
      const ids = async (query: string) => (await t.api.get(`/api/chat/threads${query}`, { token: alice.token })).body.map((th: { id: number }) => th.id);
      expect(await ids(`?peer_id=${x.id}`)).not.toContain(created.id);
      expect(await ids(`?peer_id=${x.id}&include_archived=true`)).toContain(created.id);

      const restored = await t.api.patch(`/api/chat/threads/${created.id}`, { is_archived: false, is_pinned: false }, { token: alice.token });
      expect(restored.body).toMatchObject({ archived_at: null, is_pinned: false, title: 'Incident' });
      expect(await ids(`?peer_id=${x.id}`)).toContain(created.id);
    });

    it("refuses a bad patch with 400, and hides other users' threads behind 404", async () => {
      const thread = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      const cases: Array<[unknown, string]> = [
        [{}, 'nothing to update'],
        [{ colour: 'red' }, 'nothing to update'],
        [{ title: '' }, 'title must not be empty'],
        [{ summary: 's'.repeat(4001) }, 'summary must be at most 4000 characters'],
        [{ is_pinned: 'yes' }, 'is_pinned must be a boolean'],
        [{ is_archived: 1 }, 'is_archived must be a boolean'],
      ];
      for (const [body, error] of cases) {
        const res = await t.api.patch(`/api/chat/threads/${thread.id}`, body, { token: alice.token });
        expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { error } });
      }
      for (const path of [`/api/chat/threads/${thread.id}`, '/api/chat/threads/999999']) {
        const res = await t.api.patch(path, { title: 'mine now' }, { token: bob.token });
        expect(res).toMatchObject({ status: 404, body: { error: 'thread not found' } });
      }
      const byAdmin = await t.api.patch(`/api/chat/threads/${thread.id}`, { title: 'mine now' }, { token: t.adminToken });
      expect(byAdmin).toMatchObject({ status: 404, body: { error: 'thread not found' } });
      const unchanged = await t.api.get(`/api/chat/threads?peer_id=${x.id}`, { token: alice.token });
      expect(unchanged.body.find((th: { id: number }) => th.id === thread.id).title).toBe(thread.title);
    });

    it('orders pinned first, then the most recent message (never active last), then the newest thread', async () => {
      const carol = await t.createMember();
      const make = async () => (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: carol.token })).body.id as number;
      const [pinnedIdle, pinnedActive, older, newer, idle] = [await make(), await make(), await make(), await make(), await make()];
      const untouched = await make();
      // The default thread, made by a first message, is active now (before the times set below).
      await say(carol.username, x.username, 'first');
      const byDefault = (await t.api.get(`/api/chat/threads?peer_id=${x.id}`, { token: carol.token })).body.find(
        (th: { is_default: boolean }) => th.is_default,
      ).id;
      for (const id of [pinnedIdle, pinnedActive]) await t.api.patch(`/api/chat/threads/${id}`, { is_pinned: true }, { token: carol.token });
      // last_message_at is written by the hub's group commit when a message lands; here directly.
      const touch = (id: number, at: string) => t.hub.store.db.updateTable('conversation_threads').set({ last_message_at: at }).where('id', '=', id).execute();
      await touch(pinnedActive, '2029-01-01T00:00:00.000Z');
      await touch(older, '2030-01-01T00:00:00.000Z');
      await touch(newer, '2031-01-01T00:00:00.000Z');
      const res = await t.api.get('/api/chat/threads', { token: carol.token });
      const neverActive = [untouched, idle].sort((a, b) => b - a);
      expect(res.body.map((th: { id: number }) => th.id)).toEqual([pinnedActive, pinnedIdle, newer, older, byDefault, ...neverActive]);
    });

    it("serves a thread's messages to its owner only, newest page oldest first", async () => {
      const thread = (await t.api.post('/api/chat/threads', { peer_id: x.id, title: 'Messages' }, { token: alice.token })).body;
      const other = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      const inThread: number[] = [];
      for (let i = 0; i < 5; i++) {
        inThread.push(
          await say(i === 3 ? x.username : alice.username, i === 3 ? alice.username : x.username, `in thread ${i}`, { conversation_id: thread.id }),
        );
        await say(alice.username, x.username, `elsewhere ${i}`, { conversation_id: other.id });
        await say(alice.username, x.username, `no thread ${i}`);
      }
      const path = `/api/chat/threads/${thread.id}/messages`;
      const all = await t.api.get(path, { token: alice.token });
      expect(all.status).toBe(200);
      expect(all.body.map((m: { id: number }) => m.id)).toEqual(inThread);
      expect(all.body[3]).toMatchObject({ conversation_id: thread.id, sender_id: x.id, receiver_id: alice.id, payload: 'in thread 3' });
      expect(await allPages(path, alice.token, 2)).toEqual(inThread);
      const newest = await t.api.get(`${path}?limit=2`, { token: alice.token });
      expect(newest.body.map((m: { id: number }) => m.id)).toEqual(inThread.slice(-2));

      for (const token of [bob.token, t.adminToken]) {
        expect(await t.api.get(path, { token })).toMatchObject({ status: 404, body: { error: 'thread not found' } });
      }
      expect(await t.api.get('/api/chat/threads/999999/messages', { token: alice.token })).toMatchObject({ status: 404, body: { error: 'thread not found' } });
      expect(await t.api.get(`${path}?limit=501`, { token: alice.token })).toMatchObject({ status: 400, body: { error: 'limit must be at most 500' } });
      expect(await t.api.get('/api/chat/threads/abc/messages', { token: alice.token })).toMatchObject({ status: 400, body: { error: 'id must be a number' } });
      const empty = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      expect((await t.api.get(`/api/chat/threads/${empty.id}/messages`, { token: alice.token })).body).toEqual([]);
    });

    it('refuses every thread route to an agent with 403, before reading its input', async () => {
      const thread = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      const calls = [
        t.api.get('/api/chat/threads', { token: x.api_token }),
        t.api.get(`/api/chat/threads?peer_id=${alice.id}`, { token: x.api_token }),
        t.api.post('/api/chat/threads', { peer_id: alice.id }, { token: x.api_token }),
        t.api.post('/api/chat/threads', { nonsense: true }, { token: x.api_token }),
        t.api.patch(`/api/chat/threads/${thread.id}`, { title: 'agent was here' }, { token: x.api_token }),
        t.api.get(`/api/chat/threads/${thread.id}/messages`, { token: x.api_token }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res).toMatchObject({ status: 403, body: { error: 'only human users have conversation threads' } });
      }
    });
  });

  describe('GET /api/chat/butler-agent/:agent_id', () => {
    it('returns the CHAT rows between Butler and the agent, both directions, oldest first', async () => {
      // Directives come only from Butler itself (the mock refuses them), so these go in through its write path.
      const expected = [await postAsButler(t, { payload: '[DIRECTIVE] status', target_id: y.id }), await say(y.username, 'Butler', 'all green')];
      await say('Butler', x.username, 'other agent');
      await say(alice.username, y.username, 'human to agent');
      await say('Butler', y.username, '{"action":"x"}', { type: 'AUTH_REQUEST' });
      expected.push(await postAsButler(t, { payload: '[DIRECTIVE] restart', target_id: y.id }));

      const res = await t.api.get(`/api/chat/butler-agent/${y.id}`, { token: t.adminToken });
      expect(res.status).toBe(200);
      expect(res.body.map((m: { id: number }) => m.id)).toEqual(expected);
      expect(res.body[1]).toMatchObject({ sender_id: y.id, sender_role: 'AGENT', receiver_id: butler.id, type: 'CHAT', payload: 'all green' });
      expect(res.body[0]).toMatchObject({ sender_id: butler.id, sender_role: 'BUTLER', receiver_id: y.id });
      expect(await allPages(`/api/chat/butler-agent/${y.id}`, t.adminToken, 2)).toEqual(expected);
    });

    it('answers 404 unless agent_id names an agent, 400 for bad paging, 403 to non-admins', async () => {
      for (const id of [999999, butler.id, alice.id]) {
        expect(await t.api.get(`/api/chat/butler-agent/${id}`, { token: t.adminToken })).toMatchObject({ status: 404, body: { error: 'agent not found' } });
      }
      const other = await t.createAgent();
      expect(await t.api.get(`/api/chat/butler-agent/${other.id}`, { token: t.adminToken })).toMatchObject({ status: 200, body: [] });
      expect(await t.api.get(`/api/chat/butler-agent/${y.id}?limit=0`, { token: t.adminToken })).toMatchObject({
        status: 400,
        body: { error: 'limit must be at least 1' },
      });
      for (const token of [alice.token, y.api_token]) {
        expect(await t.api.get(`/api/chat/butler-agent/${y.id}`, { token })).toMatchObject({ status: 403, body: { error: 'admin access required' } });
      }
    });
  });

  describe('hostile input', () => {
    const NUL = '\u0000';
    const HOSTILE: unknown[] = [
      null,
      true,
      -1,
      0,
      1.5,
      1e308,
      '',
      ' ',
      NUL,
      `a${NUL}b`,
      'line\nbreak',
      "'; DROP TABLE users; --",
      '😀'.repeat(120),
      'x'.repeat(70_000),
      [],
      {},
    ];

    it('never answers 500 to a hostile field next to valid ones, and stores no NUL', async () => {
      const thread = (await t.api.post('/api/chat/threads', { peer_id: x.id }, { token: alice.token })).body;
      const failures: string[] = [];
      for (const field of ['peer_id', 'channel_kind', 'title', 'summary', 'is_pinned', 'is_archived']) {
        for (const value of HOSTILE) {
          const calls = [
            t.api.post('/api/chat/threads', { peer_id: x.id, [field]: value }, { token: alice.token }),
            t.api.patch(`/api/chat/threads/${thread.id}`, { title: 'valid', [field]: value }, { token: alice.token }),
          ];
          for (const res of await Promise.all(calls)) {
            if (res.status >= 500) failures.push(`${field}=${JSON.stringify(value).slice(0, 30)} → ${res.status}`);
          }
        }
      }
      expect(failures).toEqual([]);
      const titled = await t.api.post('/api/chat/threads', { peer_id: x.id, title: `a${NUL}b` }, { token: alice.token });
      expect(titled).toMatchObject({ status: 400, body: { error: 'title must not contain control characters' } });
      const summarised = await t.api.patch(`/api/chat/threads/${thread.id}`, { summary: 'first line\nsecond\tcolumn' }, { token: alice.token });
      expect(summarised).toMatchObject({ status: 200, body: { summary: 'first line\nsecond\tcolumn' } });
    });

    it('never answers 500 to a hostile path parameter or query', async () => {
      const failures: string[] = [];
      const cases: Array<{ method: string; url: string }> = [];
      for (const route of [{ method: 'GET', path: '/api/chat/history/:peer_id' }, ...CHAT_ACCESS_ROUTES]) {
        for (const param of ['0', '-5', 'abc', '1e3', '99999999999999999999', '%00']) {
          const path = route.path.replace(/:(id|peer_id|agent_id)/, param);
          for (const key of ['limit', 'before_id', 'peer_id', 'channel_kind', 'include_archived']) {
            for (const value of ['-1', 'abc', '%00', '1e400', '', '9'.repeat(30)])
              cases.push({ method: route.method, url: `${path}?${key}=${value}&${key}=2` });
          }
        }
      }
      await eachLimited(cases, 8, async ({ method, url }) => {
        const res = await t.api.request(method, url, { token: t.adminToken, body: method === 'GET' ? undefined : {} });
        if (res.status >= 500) failures.push(`${method} ${url} → ${res.status}`);
      });
      expect(failures).toEqual([]);
    });
  });

  // The part of the access matrix access.test.ts cannot walk yet (see CHAT_ACCESS_ROUTES).
  describe.each(CHAT_ACCESS_ROUTES)('access: $method $path ($access)', (route) => {
    it('refuses a caller without credentials with 401', async () => {
      const res = await t.api.request(route.method, concrete(route.path, x.id), { body: {} });
      expect(res).toMatchObject({ status: 401, body: { error: 'authorization header required' } });
    });

    it(route.access === 'human' ? 'serves humans, refuses machines with 403' : 'serves an admin only', async () => {
      const path = concrete(route.path, x.id);
      const refused = route.access === 'human' ? (route.machineRefusal ?? 'only human users have conversation threads') : 'admin access required';
      const refusedTokens = route.access === 'human' ? [x.api_token] : [alice.token, x.api_token];
      const servedTokens = route.access === 'human' ? [alice.token, t.adminToken] : [t.adminToken];
      for (const token of refusedTokens) {
        expect(await t.api.request(route.method, path, { token, body: {} })).toMatchObject({ status: 403, body: { error: refused } });
      }
      for (const token of servedTokens) {
        const res = await t.api.request(route.method, path, { token, body: { peer_id: x.id, title: 'access check' } });
        expect([401, 403]).not.toContain(res.status);
      }
    });
  });
});
