// Butler's authorization requests in the dashboard, end to end: the fake model calls command_agent
// for an echo agent, the request shows as a card in the chat and on /approvals with a count in the
// nav; approving it in the chat runs the command (the agent's answer comes back in the chat) and the
// other tab sees APPROVED live; rejecting one on /approvals with a note shows REJECTED and the note in
// the chat card.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fakeModel.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const BUTLER_ID = 2;

describe('dashboard approvals', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  let agent: Awaited<ReturnType<Dashboard['startEchoAgent']>>;
  beforeAll(async () => {
    d = await startDashboard();
    agent = await d.startEchoAgent(`echo-approvals-${process.pid}`);
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  /** The model's next turn asks to send `command` to the echo agent, then says so. */
  function scriptCommand(command: string) {
    d.model.enqueue(
      {
        steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: agent.id, command, reasoning: 'the user asked for it' }) } }],
      },
      textReply('I asked for your approval before I send it.'),
    );
  }

  const composer = (page: Page) => page.getByRole('textbox', { name: /^Message to/ });
  const card = (page: Page, command: string) => page.getByTestId('auth-card').filter({ hasText: command });
  const listed = (page: Page, command: string) => page.getByTestId('approval').filter({ hasText: command });
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Pages' });

  async function askButler(page: Page, text: string) {
    await composer(page).fill(text);
    await composer(page).press('Enter');
  }

  it('approves in the chat card: the agent runs the command and its answer comes back; another tab sees it live', async () => {
    const user = await d.t.createMember();
    const credentials = { username: user.username, password: 'member-password' };
    const { page, context, errors } = await d.open(`/chat/${BUTLER_ID}`);
    await d.signIn(page, credentials);
    await page.getByTestId('thread-title').filter({ hasText: 'Butler' }).waitFor();
    // A second tab of the same user, on the Approvals page.
    const other = await d.open('/approvals');
    await d.signIn(other.page, credentials);
    await other.page.getByText('Nothing is waiting for your answer').waitFor();

    scriptCommand('echo hello-from-approval');
    await askButler(page, 'please have the echo agent say hello-from-approval');
    const request = card(page, 'echo hello-from-approval');
    await request.and(page.locator('[data-status="PENDING"]')).waitFor();
    expect(await request.textContent()).toContain(agent.username);
    expect(await request.textContent()).toContain('the user asked for it');
    await page.locator('[data-testid="message"]:not([data-mine])').filter({ hasText: 'I asked for your approval' }).waitFor();
    await nav(page).getByTestId('approvals-pending').filter({ hasText: '1' }).waitFor();
    await listed(other.page, 'echo hello-from-approval').and(other.page.locator('[data-status="PENDING"]')).waitFor();

    await request.getByRole('button', { name: 'Approve' }).click();
    await request.and(page.locator('[data-status="APPROVED"]')).waitFor();
    // The other tab did nothing: the hub's AUTH_STATUS_UPDATE changed it there.
    await listed(other.page, 'echo hello-from-approval').and(other.page.locator('[data-status="APPROVED"]')).waitFor();
    expect(await listed(other.page, 'echo hello-from-approval').getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await nav(other.page).getByRole('link', { name: 'Approvals' }).waitFor();
    expect(await nav(other.page).getByTestId('approvals-pending').count()).toBe(0);

    // Butler sent the directive; the echo agent's answer is reported in the chat.
    const report = page.locator('[data-testid="message"]:not([data-mine])').filter({ hasText: `${agent.username} carried out` });
    await report.filter({ hasText: 'hello-from-approval' }).and(page.locator('[data-status="confirmed"]')).waitFor();
    expect(await report.locator('.msg-body').textContent()).toMatch(/hello-from-approval\s*$/);
    expect(await request.getByRole('button').count()).toBe(0);
    await d.shoot(page, 'chat-approval');
    expect(errors).toEqual([]);
    expect(other.errors).toEqual([]);
    await context.close();
    await other.context.close();
  });

  it('rejects on /approvals: the chat card shows REJECTED, and the filters find it', async () => {
    const user = await d.t.createMember();
    const { page, context, errors } = await d.open(`/chat/${BUTLER_ID}`);
    await d.signIn(page, { username: user.username, password: 'member-password' });
    await page.getByTestId('thread-title').waitFor();

    scriptCommand('echo never-runs');
    await askButler(page, 'have the echo agent say never-runs');
    await card(page, 'echo never-runs').and(page.locator('[data-status="PENDING"]')).waitFor();
    await page.locator('[data-testid="message"]:not([data-mine])').filter({ hasText: 'I asked for your approval' }).waitFor();

    await nav(page)
      .getByRole('link', { name: /Approvals/ })
      .click();
    const item = listed(page, 'echo never-runs');
    await item.and(page.locator('[data-status="PENDING"]')).waitFor();
    expect(await item.textContent()).toContain('asked by you');
    await d.shoot(page, 'approvals');
    // The note goes with the decision: shown at once, stored, and read back wherever the request is.
    await item.getByLabel(/Note for the command/).fill('not on a Friday');
    await item.getByRole('button', { name: 'Reject' }).click();
    await item.and(page.locator('[data-status="REJECTED"]')).waitFor();
    await item.getByTestId('decision-note').filter({ hasText: 'Note: not on a Friday' }).waitFor();
    expect(await nav(page).getByTestId('approvals-pending').count()).toBe(0);

    await page.getByRole('button', { name: 'Rejected' }).click();
    await page.waitForURL(/status=rejected/);
    await listed(page, 'echo never-runs')
      .getByText(/rejected .* by you/)
      .waitFor();
    await listed(page, 'echo never-runs').getByTestId('decision-note').filter({ hasText: 'not on a Friday' }).waitFor();
    await page.getByRole('button', { name: 'Approved' }).click();
    await page.getByText('No approved requests.').waitFor();

    // Back in the chat (the link on the request), the card says REJECTED and offers nothing to press.
    await page.getByRole('button', { name: 'All' }).click();
    await listed(page, 'echo never-runs').getByRole('link', { name: 'Open the conversation' }).click();
    const chatCard = card(page, 'echo never-runs');
    await chatCard.and(page.locator('[data-status="REJECTED"]')).waitFor();
    expect(await chatCard.getByRole('button').count()).toBe(0);
    await chatCard.getByTestId('decision-note').filter({ hasText: 'not on a Friday' }).waitFor();
    await page.locator('[data-testid="message"]:not([data-mine])').filter({ hasText: 'the request was rejected' }).waitFor();
    const stored = (await d.t.api.get('/api/chat/auth/requests', { token: user.token })).body as Array<{ command: string; status: string; decided_by: number }>;
    expect(stored).toEqual([
      expect.objectContaining({ command: 'echo never-runs', status: 'REJECTED', decided_by: user.id, decision_note: 'not on a Friday' }),
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the list at phone width', async () => {
    const user = await d.t.createMember();
    const { page, context, errors } = await d.open(`/chat/${BUTLER_ID}`, { viewport: { width: 390, height: 844 } });
    await d.signIn(page, { username: user.username, password: 'member-password' });
    await page.getByTestId('thread-title').waitFor();
    scriptCommand('echo small-screen');
    await askButler(page, 'have the echo agent say small-screen');
    await card(page, 'echo small-screen').waitFor();
    await page.goto('/approvals');
    await listed(page, 'echo small-screen').getByRole('button', { name: 'Approve' }).waitFor();
    await d.shoot(page, 'approvals-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
