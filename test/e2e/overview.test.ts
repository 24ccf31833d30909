// The Overview page: agents' presence changes live (PRESENCE frames, no reload), the counts follow,
// each agent leads to its chat; Butler's pending approvals and the user's oldest unanswered message
// follow live chat and survive a reload (read back from the hub).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HubClient } from '../../src/client/index.js';
import { textReply } from '../helpers/fakeModel.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const BUTLER_ID = 2;

async function text(page: Page, testId: string, expected: string | RegExp) {
  await page.getByTestId(testId).filter({ hasText: expected }).waitFor();
}

describe('overview', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  let admin: HubClient;
  beforeAll(async () => {
    d = await startDashboard();
    // The admin's own socket, from outside the browser: what it sends echoes to the page live.
    admin = new HubClient({ url: d.t.url, token: d.t.adminToken });
    await admin.connect();
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await admin?.close();
    await d?.stop();
  });

  it('shows an agent coming online and going offline without a reload, with the counts', async () => {
    const { page, context, errors } = await d.open('/');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByText('No agents are registered yet.').waitFor();
    await text(page, 'count-online', /^0$/);
    await page.evaluate(() => ((globalThis as unknown as { marker: number }).marker = 42));

    const echo = await d.startEchoAgent('echo-overview');
    const row = page.locator('[data-testid="agent-row"][data-agent="echo-overview"]');
    await row.and(page.locator('[data-online="true"]')).waitFor();
    await text(page, 'count-online', /^1$/);
    await text(page, 'count-offline', /^0$/);
    await text(page, 'count-by-status', 'ONLINE 1');
    // The echo agent announces itself; its last report is that line.
    await row.getByText(/echo agent online/).waitFor();
    expect(await row.getByRole('link', { name: 'echo-overview', exact: true }).getAttribute('href')).toBe(`/chat/${echo.id}`);

    await echo.run.stop();
    await row.and(page.locator('[data-online="false"]')).waitFor();
    await text(page, 'count-online', /^0$/);
    await text(page, 'count-offline', /^1$/);
    await text(page, 'count-by-status', 'OFFLINE 1');
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);

    await row.getByRole('link', { name: 'echo-overview', exact: true }).click();
    await page.waitForURL(`**/chat/${echo.id}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('follows the oldest unanswered message and pending approvals live, and reads them back after a reload', async () => {
    const silent = await d.t.createAgent('silent-agent');
    // Butler commands only agents that are online.
    const worker = await d.startEchoAgent('worker-agent');
    const { page, context, errors } = await d.open('/');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    await page.getByText('Nothing is waiting').waitFor();
    await text(page, 'pending-approvals', /^0/);

    await admin.send({ type: 'CHAT', target_id: silent.id, payload: 'Are you there, silent agent?' });
    const card = page.getByTestId('oldest-unanswered');
    await card.getByText('Are you there, silent agent?').waitFor();
    await card.getByText('silent-agent').waitFor();

    // Butler asks for approval of a command, then answers: the approval waits, the message does not.
    d.model.enqueue(
      {
        steps: [
          {
            toolCall: {
              name: 'command_agent',
              arguments: JSON.stringify({ target_agent_id: worker.id, command: 'reindex search', reasoning: 'the user asked' }),
            },
          },
        ],
      },
      textReply('I asked for your approval.'),
    );
    const approval = new Promise<string>((resolve) => admin.on('AUTH_REQUEST', (f) => resolve(f.payload.action_id)));
    await admin.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'please reindex search' });
    const actionId = await approval;
    await text(page, 'pending-approvals', /^1/);
    await card.getByText('Are you there, silent agent?').waitFor();

    await page.reload();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    await card.getByText('Are you there, silent agent?').waitFor();
    await text(page, 'pending-approvals', /^1/);
    expect(await card.getByRole('link', { name: 'Open the chat' }).getAttribute('href')).toBe(`/chat/${silent.id}`);
    await d.shoot(page, 'overview');
    const phone = await d.open('/', { viewport: { width: 390, height: 844 } });
    await d.signIn(phone.page);
    await phone.page.getByTestId('oldest-unanswered').getByText('Are you there, silent agent?').waitFor();
    await d.shoot(phone.page, 'overview-phone');
    expect(phone.errors).toEqual([]);
    await phone.context.close();

    // A reply answers it; a decision clears the approval.
    const agent = new HubClient({ url: d.t.url, token: silent.api_token });
    await agent.connect();
    await agent.send({ type: 'CHAT', target_id: 1, payload: 'Yes, here.' });
    await page.getByText('Nothing is waiting').waitFor();
    await agent.close();
    await admin.rest.chat.authRespond(actionId, false);
    await text(page, 'pending-approvals', /^0/);
    expect(errors).toEqual([]);
    await context.close();
  });
});
