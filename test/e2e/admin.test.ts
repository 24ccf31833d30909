// The admin pages in a real browser against a real hub: agents (registration with a token shown
// once, test connection, rotation and deletion behind a confirmation), the Butler↔agent monitor
// (live messages from the fake model's tool calls, collected while on other pages, history after a
// reload, paging back), and the actor inspection (summary refreshing on a timer, snapshots).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HubClient } from '../../src/client/index.js';
import { startA2aPeer } from '../helpers/a2aPeer.js';
import { BUTLER_ID } from '../helpers/butler.js';
import { textReply } from '../helpers/fakeModel.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

/** Chromium logs a failed request as a console error; a refusal the page shows on purpose is not one. */
const unexpected = (errors: string[], ...statuses: number[]) => errors.filter((e) => !statuses.some((s) => e.includes(`status of ${s}`)));
/** As if the tab were hidden or shown again (headless Chromium's tab is always visible). */
const setHidden = (page: Page, hidden: boolean) =>
  page.evaluate(
    `Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} }); document.dispatchEvent(new Event('visibilitychange'))`,
  );
/** A link of the dashboard's menu. */
const nav = (page: Page, label: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: label, exact: true });

describe('admin pages', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  const contexts: BrowserContext[] = [];
  const clients: HubClient[] = [];

  /** A signed-in admin's page at `path`. */
  async function adminPage(path: string, options?: Parameters<Dashboard['open']>[1]): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
    const opened = await d.open(path, options);
    contexts.push(opened.context);
    await d.signIn(opened.page);
    return opened;
  }

  /** Screenshots of everything the page holds: the content area scrolls, so the window grows to fit it first. */
  async function shootWhole(page: Page, name: string): Promise<void> {
    const viewport = page.viewportSize()!;
    const height = await page.evaluate<number>("(m => Math.ceil(m.getBoundingClientRect().top + m.scrollHeight))(document.querySelector('main'))");
    await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
    await d.shoot(page, name);
    await page.setViewportSize(viewport);
  }

  async function connect(token: string): Promise<HubClient> {
    const client = new HubClient({ url: d.t.url, token, reconnect: false });
    clients.push(client);
    await client.connect();
    return client;
  }

  beforeAll(async () => {
    d = await startDashboard();
  }, E2E_TIMEOUT);
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    await Promise.all(clients.splice(0).map((c) => (c.state === 'stopped' ? undefined : c.close())));
  });
  afterAll(() => d?.stop());

  it('registers a remote A2A agent by its card URL (no token shown), marks it, shows it online and copies an agent card URL', async () => {
    const peer = await startA2aPeer({ name: 'e2e-remote' });
    try {
      const { page, context, errors } = await adminPage('/agents');
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.t.url });
      await page.getByRole('button', { name: 'Register an agent' }).click();
      const register = page.getByRole('form', { name: 'Register an agent' });
      await register.getByLabel('Username').fill('e2e-remote');
      await register.getByText('A remote A2A agent, by its card URL').click();
      await register.getByLabel('Card URL').fill(peer.cardUrl);
      await register.getByRole('button', { name: 'Register agent' }).click();
      await page.getByText('e2e-remote was registered by its A2A card').waitFor();
      expect(await page.getByTestId('token-reveal').count()).toBe(0);
      const row = page.getByTestId('agent-e2e-remote');
      await row.getByText('remote A2A', { exact: true }).waitFor();
      await row.getByText('online', { exact: true }).waitFor();
      await row.getByRole('button', { name: 'Copy card URL' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(`${d.t.url}/a2a/agents/e2e-remote/.well-known/agent-card.json`);
      expect(errors).toEqual([]);
    } finally {
      await peer.stop();
    }
  });

  it('registers an agent with its token shown once, tests it, rotates it and deletes the agent', async () => {
    const { page, context, errors } = await adminPage('/agents');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: d.t.url });
    const register = page.getByRole('form', { name: 'Register an agent' });
    const openRegister = page.getByRole('button', { name: 'Register an agent' });
    await openRegister.click();
    await register.getByLabel('Username').fill('e2e-worker');
    await register.getByLabel('Description').fill('runs the nightly builds');
    await register.getByLabel('Kind').fill('echo');
    await register.getByLabel('Runtime').fill('node');
    await register.getByRole('button', { name: 'Register agent' }).click();

    // The token, once, with a copy button and the warning.
    const reveal = page.getByTestId('token-reveal');
    await reveal.getByRole('heading', { name: 'e2e-worker is registered' }).waitFor();
    expect(await reveal.textContent()).toContain('Copy this token now: you will not see it again.');
    const tokenA = (await reveal.getByTestId('token-value').textContent())!.trim();
    expect(tokenA.length).toBeGreaterThanOrEqual(16);
    await reveal.getByRole('button', { name: 'Copy token' }).click();
    await reveal.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(tokenA);

    // Listed with what was typed and the token's hint; the token works: the agent connects and shows online.
    const row = page.getByTestId('agent-e2e-worker');
    await row.waitFor();
    const rowText = await row.textContent();
    for (const part of ['runs the nightly builds', 'echo', 'node', `${tokenA.slice(0, 4)}...${tokenA.slice(-4)}`, 'offline']) expect(rowText).toContain(part);
    const agentA = await connect(tokenA);
    await row.getByText('online', { exact: true }).waitFor();

    await shootWhole(page, 'agents');

    // The hub's refusal shows next to the form, which stays open.
    await openRegister.click();
    await register.getByLabel('Username').fill('e2e-worker');
    await register.getByRole('button', { name: 'Register agent' }).click();
    await register.getByRole('alert').filter({ hasText: 'username already exists' }).waitFor();
    await register.getByRole('button', { name: 'Close' }).click();
    await register.waitFor({ state: 'detached' });

    // Dismissed, the token is nowhere on the page.
    await reveal.getByRole('button', { name: 'I have saved it' }).click();
    await reveal.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(tokenA);

    // Test connection through the page: the hub's answer for a good token and for a bad one.
    const tester = page.getByRole('form', { name: 'Test a connection' });
    await page.getByRole('button', { name: 'Test a connection' }).click();
    await tester.getByLabel('Agent token').fill(tokenA);
    await tester.getByRole('button', { name: 'Test connection' }).click();
    await tester.getByTestId('test-result').filter({ hasText: 'OK: api_token belongs to e2e-worker' }).waitFor();
    await tester.getByLabel('Agent token').fill('no-such-token-anywhere-1234');
    await tester.getByRole('button', { name: 'Test connection' }).click();
    await tester.getByTestId('test-result').filter({ hasText: 'Refused: api_token is not registered to any agent' }).waitFor();

    // Rotation, confirmed: a new token shown once; the old one's socket is closed and it is refused.
    await row.getByRole('button', { name: 'Rotate token' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Rotate the token of e2e-worker?' }).waitFor();
    await dialog.getByRole('button', { name: 'Rotate token' }).click();
    await reveal.getByRole('heading', { name: 'New token for e2e-worker' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const tokenB = (await reveal.getByTestId('token-value').textContent())!.trim();
    expect(tokenB).not.toBe(tokenA);
    await agentA.stopped();
    await expect(connect(tokenA)).rejects.toThrow();
    const check = await d.t.api.post('/api/users/agents/test-connection', { api_token: tokenA }, { token: d.t.adminToken });
    expect(check.body).toMatchObject({ ok: false });
    const agentB = await connect(tokenB);
    await row.getByText(`${tokenB.slice(0, 4)}...${tokenB.slice(-4)}`).waitFor();
    await row.getByText('online', { exact: true }).waitFor();

    // Cancelling a deletion keeps the agent; confirming removes it and ends its connection.
    await row.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('heading', { name: 'Delete e2e-worker?' }).waitFor();
    await dialog.getByRole('button', { name: 'Delete agent' }).click();
    await row.waitFor({ state: 'detached' });
    await agentB.stopped();
    // The token on screen was for the deleted agent: it goes too.
    await reveal.waitFor({ state: 'detached' });
    const agents = await d.t.api.get('/api/users/agents', { token: d.t.adminToken });
    expect(agents.body.map((a: { username: string }) => a.username)).not.toContain('e2e-worker');
    expect(unexpected(errors, 409)).toEqual([]);
  });

  it('fits a phone: the agents table becomes cards without sideways scrolling', async () => {
    await d.t.createAgent('e2e-phone-agent');
    const { page, errors } = await adminPage('/agents', { viewport: { width: 390, height: 844 } });
    await page.getByTestId('agent-e2e-phone-agent').waitFor();
    const overflow = await page.evaluate<number>("(m => m.scrollWidth - m.clientWidth)(document.querySelector('main'))");
    expect(overflow).toBeLessThanOrEqual(0);
    await shootWhole(page, 'agents-phone');
    expect(errors).toEqual([]);
  });

  it('shows Butler and an agent talking live, keeps collecting on other pages, and has it all after a reload', async () => {
    const echo = await d.startEchoAgent('e2e-echo');
    const member = await d.t.createMember();
    const asker = await connect(member.token);
    /** Butler's final answer to the member with this text. */
    const butlerSays = (text: string) =>
      new Promise<void>((resolve) => {
        const off: () => void = asker.on('CHAT', (f) => {
          if (f.sender_id !== BUTLER_ID || f.payload !== text) return;
          off();
          resolve();
        });
      });
    const askEcho = async (question: string, answer: string) => {
      d.model.enqueue({ steps: [{ toolCall: { name: 'ask_agent', arguments: JSON.stringify({ target_agent_id: echo.id, question }) } }] }, textReply(answer));
      const answered = butlerSays(answer);
      await asker.send({ type: 'CHAT', target_id: BUTLER_ID, payload: `please ask the echo agent: ${question}` });
      await answered;
    };

    const { page, errors } = await adminPage(`/monitor/${echo.id}`);
    const log = page.getByRole('log');
    await log.getByText('have not talked yet').waitFor();

    // ask_agent: Butler's question and the agent's answer arrive live.
    await askEcho('what is your queue length?', 'The echo agent answered.');
    await log.locator('[data-kind="butler"]', { hasText: 'what is your queue length?' }).waitFor();
    await log.locator('[data-kind="agent"]', { hasText: 'what is your queue length?' }).waitFor();

    // command_agent: once the member approves, the directive goes out and stands apart from answers.
    const actionId = new Promise<string>((resolve) => asker.on('AUTH_REQUEST', (f) => resolve(f.payload.action_id)));
    d.model.enqueue(
      {
        steps: [
          {
            toolCall: {
              name: 'command_agent',
              arguments: JSON.stringify({ target_agent_id: echo.id, command: 'echo hello from a directive', reasoning: 'the test asked' }),
            },
          },
        ],
      },
      textReply('I asked for your approval.'),
    );
    await asker.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'have the echo agent say hello' });
    const approved = await d.t.api.post('/api/chat/auth/response', { action_id: await actionId, approved: true }, { token: member.token });
    expect(approved.status).toBe(200);
    const directive = log.locator('[data-kind="directive"]');
    await directive.filter({ hasText: 'echo hello from a directive' }).waitFor();
    expect(await directive.textContent()).toContain('Directive');
    expect(await directive.textContent()).not.toContain('[DIRECTIVE]');
    await log
      .locator('[data-kind="agent"]', { hasText: 'hello from a directive' })
      .getByTestId('monitor-answers')
      .filter({ hasText: 'echo hello from a directive' })
      .waitFor();

    // On another page, the monitor keeps collecting: back on the list, the agent shows two unseen.
    await nav(page, 'Agents').click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await askEcho('are you still there?', 'It is.');
    await nav(page, 'Monitor').click();
    const pick = page.getByRole('navigation', { name: 'Agents to monitor' }).getByRole('link', { name: /e2e-echo/ });
    await pick.getByTestId('unseen').filter({ hasText: '2' }).waitFor();
    await pick.click();
    await log.locator('[data-kind="agent"]', { hasText: 'are you still there?' }).waitFor();
    await pick.getByTestId('unseen').waitFor({ state: 'detached' });

    // After a reload the stored history holds the same six messages, the directive still apart.
    await page.reload();
    await log.locator('[data-kind="directive"]', { hasText: 'echo hello from a directive' }).waitFor();
    await log.getByText('Start of the conversation').waitFor();
    const kinds = await log.getByTestId('monitor-entry').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
    expect(kinds).toEqual(['butler', 'agent', 'directive', 'agent', 'butler', 'agent']);
    // The stored answer still names the directive it answers.
    expect(await log.getByTestId('monitor-answers').allTextContents()).toEqual(['answers the directive echo hello from a directive']);
    await d.shoot(page, 'monitor');
    expect(errors).toEqual([]);

    // On a phone the conversation takes the screen, with a way back to the list.
    const phone = await adminPage(`/monitor/${echo.id}`, { viewport: { width: 390, height: 844 } });
    await phone.page.getByRole('log').locator('[data-kind="directive"]').waitFor();
    expect(await phone.page.getByRole('navigation', { name: 'Agents to monitor' }).isVisible()).toBe(false);
    await d.shoot(phone.page, 'monitor-phone');
    await phone.page.getByRole('link', { name: '← Agents' }).click();
    await phone.page
      .getByRole('navigation', { name: 'Agents to monitor' })
      .getByRole('link', { name: /e2e-echo/ })
      .waitFor();
    expect(phone.errors).toEqual([]);
  });

  it('pages back through a long conversation and adds what arrives once', async () => {
    const chatty = await d.t.createAgent('e2e-chatty');
    const say = async (i: number) => {
      const fromButler = i % 2 === 1;
      const res = await d.t.api.post(
        '/api/dev/mock/chat',
        { sender_username: fromButler ? 'Butler' : chatty.username, receiver_username: fromButler ? chatty.username : 'Butler', content: `message ${i}` },
        { token: d.t.adminToken },
      );
      expect(res.status).toBe(201);
    };
    for (let i = 1; i <= 130; i++) await say(i);

    const { page, errors } = await adminPage(`/monitor/${chatty.id}`);
    const log = page.getByRole('log');
    const entries = log.getByTestId('monitor-entry');
    await log.getByText('message 130', { exact: true }).waitFor();
    expect(await entries.count()).toBe(100);
    await log.getByRole('button', { name: 'Load older messages' }).click();
    await log.getByText('message 1', { exact: true }).waitFor();
    await log.getByText('Start of the conversation').waitFor();
    expect(await entries.count()).toBe(130);

    await say(131);
    await log.getByText('message 131', { exact: true }).waitFor();
    expect(await entries.count()).toBe(131);
    expect(errors).toEqual([]);
  });

  it('lists the router and the admin’s own connection, refreshes on a timer, and opens snapshots', async () => {
    const { page, errors } = await adminPage('/actors');
    const router = page.getByTestId('section-router');
    await router.waitFor();
    const connections = page.getByTestId('section-connections');
    const listed = connections.getByRole('table', { name: 'Connections: listed actors' });
    const cell = (text: string) => page.getByRole('cell', { name: text, exact: true });
    const mine = listed
      .getByRole('row')
      .filter({ has: cell('ADMIN') })
      .filter({ has: cell('admin') });
    await mine.first().waitFor();
    expect(await page.getByTestId('updated-ago').textContent()).toMatch(/updated \d+ s ago/);

    // A socket opened after the page loaded shows up without a reload: the summary is read again.
    const member = await d.t.createMember();
    await connect(member.token);
    await listed
      .getByRole('row')
      .filter({ has: cell(member.username) })
      .waitFor({ timeout: 15_000 });

    // Pause and resume; a hidden tab pauses by itself.
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('paused', { exact: true }).waitFor({ state: 'detached' });
    await setHidden(page, true);
    await page.getByText('paused while hidden').waitFor();
    await setHidden(page, false);
    await page.getByText('paused while hidden').waitFor({ state: 'detached' });
    await shootWhole(page, 'actors');

    // The router's snapshot, from its id in the summary.
    await router.getByRole('link', { name: 'router', exact: true }).click();
    await page.waitForURL('**/actors/router');
    const facts = page.getByTestId('actor-facts');
    await facts.getByText('running').waitFor();
    expect(await facts.textContent()).toContain('router');
    const context = page.getByTestId('actor-context');
    await context.getByText('sockets_per_user').waitFor();

    // The admin's own connection: its user in the context tree.
    await nav(page, 'Actors').click();
    const link = mine.first().getByRole('link');
    const id = (await link.textContent())!;
    expect(id).toMatch(/^connection-\d+$/);
    await link.click();
    await page.waitForURL(`**/actors/${id}`);
    await facts.getByText('open.live').waitFor();
    expect(await facts.textContent()).toContain('connection');
    await context.getByText('"admin"', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Collapse all' }).click();
    await context.getByText('"admin"', { exact: true }).waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Expand all' }).click();
    await context.getByText('"admin"', { exact: true }).waitFor();
    await shootWhole(page, 'actor-detail');

    // An actor that is not live says so.
    await page.goto('/actors/connection-999999');
    await page.getByText('connection-999999 is not a live actor').waitFor();
    expect(unexpected(errors, 404)).toEqual([]);
  });
});
