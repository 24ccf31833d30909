// The dashboard's connection: when the line drops the indicator says so, the client reconnects by
// itself and resumes, so what was stored meanwhile still arrives, once; and a role changed by an
// admin (the hub closes the user's socket) shows in the pages after the reconnect. A reply streaming
// when the line drops shows as interrupted, not as still being written, until its stored end replaces it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpRelay } from '../helpers/tcpRelay.js';
import { connectWs } from '../helpers/wsClient.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

describe('dashboard connection', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  let relay: Awaited<ReturnType<typeof startTcpRelay>>;
  beforeAll(async () => {
    d = await startDashboard();
    relay = await startTcpRelay(d.t.hub.port);
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await relay?.close();
    await d?.stop();
  });

  it('shows a dropped connection, reconnects by itself and resumes without gaps or doubles', async () => {
    const agent = await d.t.createAgent();
    const log = async (content: string) => {
      const res = await d.t.api.post('/api/messages', { level: 'INFO', content }, { token: agent.api_token });
      expect(res.status).toBe(201);
    };
    const { page, context, errors } = await d.open('/feed', { base: relay.url });
    await d.signIn(page);
    await log('before the drop');
    await page.getByText('before the drop').waitFor();

    relay.retarget(undefined);
    relay.drop();
    const indicator = page.getByTestId('connection');
    await page.locator('[data-testid="connection"][data-state="waiting"]').waitFor();
    expect(await indicator.textContent()).toContain('Reconnecting');
    await d.shoot(page, 'reconnecting');

    await log('while the line was down');
    relay.retarget(d.t.hub.port);
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 45_000 });
    await page.getByText('while the line was down').waitFor();
    expect(await page.getByText('while the line was down').count()).toBe(1);
    expect(await page.getByText('before the drop').count()).toBe(1);
    // The page never lost its session: the drop is not an authentication problem.
    expect(await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).count()).toBe(0);
    expect(errors.filter((e) => !/WebSocket|ERR_CONNECTION|net::/.test(e))).toEqual([]);
    await context.close();
  });

  it('follows a role change: a member promoted to admin sees the admin pages after the hub reconnects them', async () => {
    const member = await d.t.createMember();
    const { page, context } = await d.open('/');
    await d.signIn(page, { username: member.username, password: 'member-password' });
    const nav = page.getByRole('navigation', { name: 'Pages' });
    await nav.getByRole('link', { name: 'Chat' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Agents' }).count()).toBe(0);

    const res = await d.t.api.patch(`/api/users/${member.id}`, { role: 'ADMIN' }, { token: d.t.adminToken });
    expect(res.status).toBe(200);
    await nav.getByRole('link', { name: 'Agents' }).waitFor();
    expect(await page.locator('.who').textContent()).toContain('admin');
    await context.close();
  });

  it('shows a reply cut by a dropped connection as interrupted, and its whole text once the hub sends it after the reconnect', async () => {
    const agent = await d.t.createAgent();
    const agentWs = await connectWs(d.t.url, agent.api_token);
    const member = await d.t.createMember();
    const { page, context, errors } = await d.open(`/chat/${agent.id}`, { base: relay.url });
    await d.signIn(page, { username: member.username, password: 'member-password' });
    const composer = page.getByRole('textbox', { name: /^Message to/ });
    await composer.fill('tell me a long story');
    await composer.press('Enter');
    const asked = await agentWs.nextWhere((f) => f.type === 'CHAT' && f.sender_id === member.id, "the member's chat", 10_000);
    const envelope = { target_id: member.id, conversation_id: asked.conversation_id, stream_id: 'story-1' };

    agentWs.send({ type: 'CHAT_STREAM', payload: 'Once upon a time ', ...envelope });
    const reply = page.locator('[data-testid="message"]:not([data-mine])');
    await reply.and(page.locator('[data-status="streaming"]')).filter({ hasText: 'Once upon a time' }).waitFor();

    relay.retarget(undefined);
    relay.drop();
    const interrupted = reply.and(page.locator('[data-status="interrupted"]'));
    await interrupted.filter({ hasText: 'Once upon a time' }).waitFor();
    expect(await interrupted.getByRole('status').textContent()).toBe('interrupted');
    expect(await reply.getByText('writing…').count()).toBe(0);
    await d.shoot(page, 'chat-interrupted');

    // The agent finishes while the dashboard is away: its end is live only, its final CHAT is stored.
    agentWs.send({ type: 'CHAT', payload: 'Once upon a time there was an end.', local_id: 'story-final', ...envelope });
    await agentWs.nextWhere((f) => f.type === 'ACK' && f.local_id === 'story-final', 'the ACK of the final CHAT', 10_000);
    agentWs.send({ type: 'CHAT_STREAM_END', payload: '', ...envelope });

    relay.retarget(d.t.hub.port);
    await reply.and(page.locator('[data-status="confirmed"]')).filter({ hasText: 'there was an end.' }).waitFor({ timeout: 45_000 });
    expect(await reply.count()).toBe(1);
    expect(errors.filter((e) => !/WebSocket|ERR_CONNECTION|net::/.test(e))).toEqual([]);
    await agentWs.close();
    await context.close();
  });
});
