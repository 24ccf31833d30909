// /mcp with the official MCP SDK's client as the peer, over Streamable HTTP on a real socket to a
// real hub, on both stores: the credential check before any MCP message, JWTs and personal access
// tokens (a revoked one stops at once, also mid-wait), every tool as the caller with the caller's
// access (a member's refusals included), a real agent on the WebSocket answering send_message, Butler's
// approvals decided by the right person only, the metrics, and a client that hangs up mid-call.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUTLER_ID } from '../helpers/butler.js';
import { describeEachDriver } from '../helpers/db.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { callTool, connectMcp, ERAS } from '../helpers/mcpClient.js';
import { wsClientPool, type WsClient } from '../helpers/wsClient.js';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A raw POST /mcp, as a client that does not use the SDK would send it. */
function post(t: TestHub, body: string, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body,
    signal,
  });
}

/** The text of a tool error. */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, `${name} should have failed: ${JSON.stringify(result)}`).toBe(true);
  return (result.content as Array<{ text: string }>).map((c) => c.text).join('\n');
}

describeEachDriver('MCP server', (driver) =>
  describe.each(ERAS)('%s era', (era) => {
    let t: TestHub;
    let member: { id: number; username: string; token: string };
    let other: { id: number; username: string; token: string };
    const sockets = wsClientPool(() => t.url);
    const clients: Client[] = [];
    const mcp = async (token: string) => {
      const client = await connectMcp(t.url, token, era);
      clients.push(client);
      return client;
    };
    const mintToken = async (token: string, name = 'mcp client') => {
      const res = await t.api.post('/api/auth/access-tokens', { name }, { token });
      expect(res.status).toBe(201);
      return res.body as { id: number; token: string };
    };

    beforeAll(async () => {
      t = await startTestHub(driver);
      member = await t.createMember();
      other = await t.createMember();
    });
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
      await sockets.closeAll();
    });
    afterAll(() => t?.stop());

    /** A registered agent, connected over the WebSocket. */
    async function onlineAgent(): Promise<{ id: number; username: string; ws: WsClient }> {
      const agent = await t.createAgent();
      const ws = await sockets.connect(agent.api_token);
      return { id: agent.id, username: agent.username, ws };
    }

    it('answers 401 with a Bearer challenge before reading the message: none, malformed or unknown credentials', async () => {
      const none = await post(t, 'this is not JSON at all');
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="agent-hub"');
      expect(await none.json()).toEqual({ error: expect.stringContaining('authorization required') });

      const malformed = await post(t, 'not JSON either', { Authorization: 'Token abc' });
      expect(malformed.status).toBe(401);
      expect(malformed.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-hub", error="invalid_request"/);

      for (const token of ['nonsense', 'hubpat_' + 'A'.repeat(43), 'a.b.c']) {
        const bad = await post(t, JSON.stringify(INITIALIZE), { Authorization: `Bearer ${token}` });
        expect(bad.status, token).toBe(401);
        expect(bad.headers.get('www-authenticate'), token).toMatch(/^Bearer realm="agent-hub", error="invalid_token"/);
      }
      await expect(connectMcp(t.url, 'nonsense', era)).rejects.toThrow();
    });

    it('answers a body over HTTP_BODY_LIMIT_BYTES with 413 once the caller is known, and GET (no session streams here) with 405', async () => {
      const big = JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, padding: 'x'.repeat(1_100_000) } });
      const anonymous = await post(t, big);
      expect(anonymous.status).toBe(401);
      const tooLarge = await post(t, big, { Authorization: `Bearer ${member.token}` });
      expect(tooLarge.status).toBe(413);
      expect(await tooLarge.json()).toEqual({ error: 'request body is larger than 1048576 bytes' });
      const get = await fetch(`${t.url}/mcp`, { headers: { Authorization: `Bearer ${member.token}`, Accept: 'text/event-stream' } });
      expect(get.status).toBe(405);
      const notJson = await post(t, '{"jsonrpc": "2.0", "id": 1, "method": ', { Authorization: `Bearer ${member.token}` });
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });

    it("refuses an agent's api_token with 403: MCP acts as a person", async () => {
      const agent = await t.createAgent();
      const res = await post(t, JSON.stringify(INITIALIZE), { Authorization: `Bearer ${agent.api_token}` });
      expect(res.status).toBe(403);
      expect(res.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
    });

    it('lists the seven tools, each with a one-line description, input and output schemas; decide_approval is destructive', async () => {
      const client = await mcp(member.token);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ['ask_butler', 'decide_approval', 'get_agent', 'list_agents', 'list_approvals', 'read_history', 'send_message'].sort(),
      );
      for (const tool of tools) {
        expect(tool.description, tool.name).toMatch(/^[^\n]{20,200}$/);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
      }
      const decide = tools.find((tool) => tool.name === 'decide_approval')!;
      expect(decide.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      expect(tools.find((tool) => tool.name === 'list_agents')!.annotations).toMatchObject({ readOnlyHint: true });
    });

    it('works with a personal access token, and a revoked token stops at once', async () => {
      const { id, token } = await mintToken(member.token);
      const client = await mcp(token);
      const { agents } = await callTool<{ agents: Array<{ name: string }> }>(client, 'list_agents');
      expect(agents.map((a) => a.name)).toContain('Butler');
      expect((await t.api.delete(`/api/auth/access-tokens/${id}`, { token: member.token })).status).toBe(200);
      await expect(client.callTool({ name: 'list_agents', arguments: {} })).rejects.toThrow();
      const raw = await post(t, JSON.stringify(INITIALIZE), { Authorization: `Bearer ${token}` });
      expect(raw.status).toBe(401);
    });

    it('ends a call waiting for a reply the moment its token is revoked', async () => {
      const agent = await onlineAgent();
      const { id, token } = await mintToken(member.token);
      const client = await mcp(token);
      const waiting = client.callTool({ name: 'send_message', arguments: { to: agent.username, text: 'take your time', wait_seconds: 120 } });
      waiting.catch(() => undefined);
      await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.payload === 'take your time', 'the message');
      const started = Date.now();
      expect((await t.api.delete(`/api/auth/access-tokens/${id}`, { token: member.token })).status).toBe(200);
      await expect(waiting).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(10_000);
      await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(0), { timeout: 5000 });
    });

    it('ends the waiting calls of a user who is deleted', async () => {
      const agent = await onlineAgent();
      const leaving = await t.createMember();
      const client = await mcp(leaving.token);
      const waiting = client.callTool({ name: 'send_message', arguments: { to: agent.username, text: 'before I go', wait_seconds: 120 } });
      waiting.catch(() => undefined);
      await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.payload === 'before I go', 'the message');
      const started = Date.now();
      expect((await t.api.delete(`/api/users/${leaving.id}`, { token: t.adminToken })).status).toBe(200);
      await expect(waiting).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(10_000);
      await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(0), { timeout: 5000 });
    });

    it('list_agents and get_agent show presence, kind, last report and recent reports', async () => {
      const agent = await onlineAgent();
      agent.ws.send({ type: 'SYSTEM_LOG', payload: { level: 'SUCCESS', content: 'warmed up' }, local_id: 'r1' });
      await agent.ws.next('ACK');
      const client = await mcp(member.token);
      const online = await callTool<{ agents: Array<{ id: number; online: boolean; kind: string; last_report: string }> }>(client, 'list_agents', {
        text: agent.username,
        online: true,
      });
      expect(online.agents).toEqual([expect.objectContaining({ id: agent.id, online: true, kind: 'generic', last_report: 'warmed up' })]);
      const offline = await callTool<{ agents: unknown[] }>(client, 'list_agents', { text: agent.username, online: false });
      expect(offline.agents).toEqual([]);
      const butlerOnly = await callTool<{ agents: Array<{ name: string }> }>(client, 'list_agents', { kind: 'butler' });
      expect(butlerOnly.agents.map((a) => a.name)).toEqual(['Butler']);

      const one = await callTool<{ agent: { id: number }; card_url: string; recent_reports: Array<{ content: string }> }>(client, 'get_agent', {
        agent: agent.username,
      });
      expect(one.agent.id).toBe(agent.id);
      expect(one.recent_reports.map((r) => r.content)).toEqual(['warmed up']);
      // The card URL is the agent's A2A card on the origin the client used, and it answers with that agent's card.
      expect(one.card_url).toBe(`${t.url}/a2a/agents/${agent.username}/.well-known/agent-card.json`);
      const card = await fetch(one.card_url, { headers: { authorization: `Bearer ${member.token}` } });
      expect(card.status).toBe(200);
      expect(((await card.json()) as { name: string }).name).toBe(agent.username);
      const butler = await callTool<{ card_url: string }>(client, 'get_agent', { agent: 'Butler' });
      expect(butler.card_url).toBe(`${t.url}/.well-known/agent-card.json`);
      expect(await toolError(client, 'get_agent', { agent: 'no-such-agent' })).toBe('user "no-such-agent" not found');
      expect(await toolError(client, 'get_agent', { agent: String(other.id) })).toBe(`agent "${other.id}" not found`);
    });

    it('get_agent never shows a member a report addressed to someone else', async () => {
      const agent = await onlineAgent();
      agent.ws.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'for the admin only' }, target_id: 1, local_id: 'private' });
      await agent.ws.next('ACK');
      const asMember = await callTool<{ recent_reports: unknown[] }>(await mcp(member.token), 'get_agent', { agent: agent.username });
      expect(asMember.recent_reports).toEqual([]);
      const asAdmin = await callTool<{ recent_reports: Array<{ content: string }> }>(await mcp(t.adminToken), 'get_agent', { agent: agent.username });
      expect(asAdmin.recent_reports.map((r) => r.content)).toEqual(['for the admin only']);
    });

    it('send_message reaches a real agent as the caller and, with wait_seconds, returns its streamed reply; read_history shows both', async () => {
      const agent = await onlineAgent();
      const client = await mcp(member.token);
      const progress: string[] = [];
      const call = client.callTool(
        { name: 'send_message', arguments: { to: agent.username, text: 'what is the status?', wait_seconds: 30 } },
        { onprogress: (p) => progress.push(String(p.message)) },
      );
      const asked = await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.payload === 'what is the status?', 'the question');
      expect(asked).toMatchObject({ sender_id: member.id, sender_name: member.username, target_id: agent.id });
      agent.ws.send({ type: 'CHAT_STREAM', target_id: member.id, payload: 'all ', stream_id: 's1' });
      agent.ws.send({ type: 'CHAT_STREAM', target_id: member.id, payload: 'green', stream_id: 's1' });
      agent.ws.send({ type: 'CHAT', target_id: member.id, payload: 'all green', stream_id: 's1', local_id: 'reply-1' });
      agent.ws.send({ type: 'CHAT_STREAM_END', target_id: member.id, payload: '', stream_id: 's1' });
      const result = await call;
      expect(result.isError).toBeFalsy();
      const out = result.structuredContent as {
        message_id: number;
        status: string;
        reply: { text: string; id: number };
        to: { id: number };
        thread_id: number;
      };
      expect(out).toMatchObject({ status: 'replied', to: { id: agent.id }, reply: { text: 'all green' } });
      expect(out.message_id).toBe(asked.id);
      expect(progress).toEqual(['all ', 'green']);

      const history = await callTool<{ messages: Array<{ id: number; text: string; from: string }> }>(client, 'read_history', { peer: agent.username });
      expect(history.messages.map((m) => [m.from, m.text])).toEqual([
        [member.username, 'what is the status?'],
        [agent.username, 'all green'],
      ]);
      const byThread = await callTool<{ messages: Array<{ id: number }> }>(client, 'read_history', { thread: out.thread_id });
      expect(byThread.messages.map((m) => m.id)).toEqual(history.messages.map((m) => m.id));
      // The thread is the member's: another member reads it as missing.
      expect(await toolError(await mcp(other.token), 'read_history', { thread: out.thread_id })).toBe('thread not found');
    });

    it('send_message says "no_reply_yet" when the wait ends first, and "sent" without a wait', async () => {
      const agent = await onlineAgent();
      const client = await mcp(member.token);
      const waited = await callTool<{ status: string; reply: unknown }>(client, 'send_message', { to: String(agent.id), text: 'anyone?', wait_seconds: 1 });
      expect(waited).toMatchObject({ status: 'no_reply_yet', reply: null });
      const sent = await callTool<{ status: string }>(client, 'send_message', { to: agent.username, text: 'fire and forget' });
      expect(sent.status).toBe('sent');
      await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.payload === 'fire and forget', 'the second message');
    });

    it("refuses with the hub's own message what the hub refuses", async () => {
      const agent = await onlineAgent();
      const client = await mcp(member.token);
      expect(await toolError(client, 'send_message', { to: 'nobody-by-this-name', text: 'hi' })).toBe('user "nobody-by-this-name" not found');
      expect(await toolError(client, 'send_message', { to: agent.username, text: '[DIRECTIVE] reboot' })).toBe(
        'only Butler sends directives: a chat message may not start with [DIRECTIVE]',
      );
      expect(await toolError(client, 'send_message', { to: member.username, text: 'me' })).toMatch(/yourself/);
      expect(await toolError(client, 'read_history', {})).toBe('name either peer or thread (one of them)');
      // Input the schema refuses is a tool error naming the field, never a crash.
      expect(await toolError(client, 'send_message', { to: agent.username, text: '' })).toMatch(/text/);
      expect(await toolError(client, 'send_message', { to: agent.username, text: 'x', wait_seconds: 999 })).toMatch(/wait_seconds/);
    });

    it('Butler asks the asker to approve; only that person decides it over MCP, and the agent gets the command', async () => {
      const agent = await onlineAgent();
      const asker = await mcp(member.token);
      const asked = await callTool<{ status: string; approvals_requested: string[]; answer: { text: string } }>(asker, 'ask_butler', {
        text: `@${agent.username} restart the cache`,
      });
      expect(asked.status).toBe('answered');
      expect(asked.approvals_requested).toHaveLength(1);
      const actionId = asked.approvals_requested[0]!;

      const listed = await callTool<{ approvals: Array<{ action_id: string; status: string; command: string }> }>(asker, 'list_approvals', {
        status: 'PENDING',
      });
      expect(listed.approvals).toEqual([expect.objectContaining({ action_id: actionId, status: 'PENDING', command: 'restart the cache' })]);

      const stranger = await mcp(other.token);
      const theirs = await callTool<{ approvals: Array<{ action_id: string }> }>(stranger, 'list_approvals');
      expect(theirs.approvals.map((a) => a.action_id)).not.toContain(actionId);
      expect(await toolError(stranger, 'decide_approval', { action_id: actionId, approve: true })).toBe('this authorization request was sent to another user');
      expect(await toolError(stranger, 'decide_approval', { action_id: 'no-such-action', approve: true })).toBe('authorization request not found');

      expect(await toolError(asker, 'decide_approval', { action_id: actionId, approve: true, note: 'x'.repeat(2001) })).toMatch(/note/);
      const decided = await callTool<{ status: string; result: string; note: string | null }>(asker, 'decide_approval', {
        action_id: actionId,
        approve: true,
        note: 'cache is stale after the deploy',
      });
      expect(decided).toMatchObject({
        status: 'APPROVED',
        result: `approved: the command is being sent to ${agent.username}`,
        note: 'cache is stale after the deploy',
      });
      await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.sender_id === BUTLER_ID && f.payload === '[DIRECTIVE] restart the cache', 'the directive');
      expect(await toolError(asker, 'decide_approval', { action_id: actionId, approve: false })).toBe('authorization request already approved');
      // The note is stored with the decision: the asker and admins read it (MCP and HTTP), the stranger never does.
      const after = await callTool<{ approvals: Array<{ action_id: string; decision_note: string | null }> }>(asker, 'list_approvals');
      expect(after.approvals.find((a) => a.action_id === actionId)).toMatchObject({ decided_by: member.id, decision_note: 'cache is stale after the deploy' });
      const asAdmin = (await t.api.get('/api/chat/auth/requests', { token: t.adminToken })).body as Array<{ action_id: string; decision_note: string }>;
      expect(asAdmin.find((a) => a.action_id === actionId)?.decision_note).toBe('cache is stale after the deploy');
      const strangerAfter = await callTool<{ approvals: Array<{ action_id: string }> }>(stranger, 'list_approvals');
      expect(JSON.stringify(strangerAfter)).not.toContain('cache is stale');
    });

    it("reads a thread as a resource, and a subscription hears only its owner's thread change", async () => {
      const agent = await onlineAgent();
      const owner = await mcp(member.token);
      const sent = await callTool<{ thread_id: number }>(owner, 'send_message', { to: agent.username, text: 'open a thread' });
      const uri = `hub://threads/${sent.thread_id}/messages`;
      const read = await owner.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual([expect.objectContaining({ text: 'open a thread', from: member.username })]);
      const { resources } = await owner.listResources();
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['hub://agents', uri]));
      const stranger = await mcp(other.token);
      await expect(stranger.readResource({ uri })).rejects.toThrow(/thread not found/);

      if (era === 'legacy') {
        // The 2025 revisions are served statelessly: no stream outlives its request, so no subscriptions are offered.
        expect(owner.getServerCapabilities()?.resources?.subscribe).toBeFalsy();
        return;
      }
      expect(owner.getServerCapabilities()?.resources?.subscribe).toBe(true);
      const heard: string[] = [];
      const strangerHeard: string[] = [];
      let wake: (() => void) | undefined;
      owner.setNotificationHandler('notifications/resources/updated', (n) => {
        heard.push(n.params.uri);
        wake?.();
      });
      stranger.setNotificationHandler('notifications/resources/updated', (n) => {
        strangerHeard.push(n.params.uri);
        wake?.();
      });
      const until = (done: () => boolean) =>
        new Promise<void>((resolve) => {
          wake = () => done() && resolve();
          wake();
        });
      const ownerSub = await owner.listen({ resourceSubscriptions: [uri] });
      // The stranger asks for the same thread, and for one of their own.
      const theirs = await callTool<{ thread_id: number }>(stranger, 'send_message', { to: agent.username, text: 'my own thread' });
      const theirUri = `hub://threads/${theirs.thread_id}/messages`;
      const strangerSub = await stranger.listen({ resourceSubscriptions: [uri, theirUri] });
      try {
        expect(ownerSub.honoredFilter.resourceSubscriptions).toEqual([uri]);
        agent.ws.send({ type: 'CHAT', target_id: member.id, payload: 'an answer in your thread', local_id: 'in-thread' });
        await until(() => heard.includes(uri));
        agent.ws.send({ type: 'CHAT', target_id: other.id, payload: 'an answer in theirs', local_id: 'in-theirs' });
        await until(() => strangerHeard.includes(theirUri));
        // Their stream got their own thread's change, and never the owner's before it.
        expect(strangerHeard).toEqual([theirUri]);
      } finally {
        await ownerSub.close();
        await strangerSub.close();
      }
    });

    it('counts tool calls by tool and outcome in /metrics', async () => {
      const client = await mcp(member.token);
      await callTool(client, 'list_agents');
      await toolError(client, 'get_agent', { agent: 'missing-agent' });
      const metrics = await (await fetch(`${t.url}/metrics`)).text();
      expect(metrics).toMatch(/hub_mcp_tool_calls_total\{tool="list_agents",outcome="ok"\} [1-9]/);
      expect(metrics).toMatch(/hub_mcp_tool_calls_total\{tool="get_agent",outcome="refused"\} [1-9]/);
      expect(metrics).toMatch(/hub_http_requests_total\{method="POST",route="\/mcp",status="200"\} [1-9]/);
    });

    it('lets go of a call whose client hung up: the request ends and the hub holds nothing for it', async () => {
      const agent = await onlineAgent();
      const client = await mcp(member.token);
      await callTool(client, 'list_agents');
      const aborter = new AbortController();
      const call = {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'send_message', arguments: { to: agent.username, text: 'about to hang up', wait_seconds: 120 } },
      };
      const pending = post(t, JSON.stringify(call), { Authorization: `Bearer ${member.token}`, 'MCP-Protocol-Version': '2025-06-18' }, aborter.signal);
      pending.catch(() => undefined);
      await agent.ws.nextWhere((f) => f.type === 'CHAT' && f.payload === 'about to hang up', 'the message');
      expect(t.hub.inFlightRequests()).toBeGreaterThan(0);
      aborter.abort();
      await vi.waitFor(() => expect(t.hub.inFlightRequests()).toBe(0), { timeout: 5000 });
      // The hub still serves the next call.
      expect((await callTool<{ agents: unknown[] }>(client, 'list_agents')).agents.length).toBeGreaterThan(0);
    });
  }),
);

describe('MCP while the hub stops', () => {
  it('ends a call still waiting for a reply at once instead of holding the drain', async () => {
    const t = await startTestHub('sqlite');
    const member = await t.createMember();
    const agent = await t.createAgent();
    const sockets = wsClientPool(() => t.url);
    const agentWs = await sockets.connect(agent.api_token);
    const client = await connectMcp(t.url, member.token);
    try {
      const waiting = client.callTool({ name: 'send_message', arguments: { to: agent.username, text: 'still there?', wait_seconds: 120 } });
      waiting.catch(() => undefined);
      await agentWs.nextWhere((f) => f.type === 'CHAT' && f.payload === 'still there?', 'the message');
      const started = Date.now();
      await t.stop();
      // Well inside the 10 s the drain would otherwise wait for requests in flight.
      expect(Date.now() - started).toBeLessThan(5000);
      await expect(waiting).rejects.toThrow();
      expect(t.logs.some((l) => l['msg'] === 'requests still in flight after the drain timeout; closing anyway')).toBe(false);
    } finally {
      await client.close().catch(() => undefined);
      await sockets.closeAll();
    }
  });
});
