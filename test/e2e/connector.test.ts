// The connector page against a real hub and the fake chat platform: create a draft, a failed and a
// successful verification, enable (the long connection comes up), a test message the platform
// records, the log with its paging, disable, a credentials change that sends the connector back
// to draft after a warning, and a save over someone else's change. The diagram's highlighted state
// is checked at every step; screenshots in draft and enabled, and at phone width.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const APP_ID = 'cli_e2e0123456789ab0';
const APP_SECRET = 'e2e-app-secret-0123456789';
const BASE = '/api/integrations/chatplatform';

/** Waits until the diagram marks `state` as current, and checks it marks nothing else. */
async function expectCurrent(page: Page, state: string) {
  const diagram = page.getByTestId('connector-diagram');
  await diagram.locator(`[data-state="${state}"][data-current="true"]`).waitFor();
  expect(await diagram.getAttribute('data-current')).toBe(state);
  expect(await diagram.locator('[data-current="true"]').count()).toBe(1);
  expect(await page.getByTestId('diagram-current').textContent()).toBe(`Current state: ${state}`);
  expect(await page.getByTestId('connector-status').getAttribute('data-state')).toBe(state);
}

/** Screenshots from the top of the page (the shell scrolls its main area, not the document). */
async function shootTop(d: Dashboard, page: Page, name: string) {
  await page.locator('main').evaluate((el) => el.scrollTo(0, 0));
  await d.shoot(page, name);
}

async function activeEdges(page: Page): Promise<string[]> {
  const edges = await page
    .getByTestId('connector-diagram')
    .locator('[data-active="true"]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-edge') ?? ''));
  return edges.sort();
}

describe('connector page', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    // The long connection on, so "connected" can be seen once enabled.
    d = await startDashboard({ CHATPLATFORM_WS_ENABLED: 'true', CHATPLATFORM_TIMEOUT_MS: '2000' });
    d.platform.registerApp(APP_ID, APP_SECRET);
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  it('walks a connector from creation through verify, enable, a test message and disable', async () => {
    const { page, context, errors } = await d.open('/connector');
    await d.signIn(page);
    await page.getByRole('heading', { name: 'Connector', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'New connector' }).waitFor();
    expect(await page.getByTestId('connector-status').getAttribute('data-state')).toBe('none');
    expect(await page.getByTestId('connector-diagram').getAttribute('data-current')).toBe('');
    expect(await activeEdges(page)).toEqual(['->draft']);
    // Nothing to act on yet, and the page says why.
    expect(await page.getByRole('button', { name: 'Verify', exact: true }).isDisabled()).toBe(true);
    await page.getByText('Create the connector first: fill in the settings and save.').first().waitFor();

    // Create, with a secret the platform will refuse.
    await page.getByLabel('Name', { exact: true }).fill('Ops Feishu');
    await page.getByLabel('App ID', { exact: true }).fill(APP_ID);
    await page.getByLabel('App secret', { exact: true }).fill('not-the-right-secret');
    await page.getByLabel('Allowed chat IDs', { exact: true }).fill('oc_ops\noc_backup');
    await page.getByRole('button', { name: 'Create connector' }).click();
    await expectCurrent(page, 'draft');
    expect(await activeEdges(page)).toEqual(['draft->verified']);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    // The secret is write-only: "set", never shown.
    const secret = page.locator('[data-field="cx-app_secret"]');
    expect(await secret.getByText('set', { exact: true }).count()).toBe(1);
    expect(await page.content()).not.toContain('not-the-right-secret');
    // Enabling needs a verified connector; the button says so.
    expect(await page.getByRole('button', { name: 'Enable', exact: true }).isDisabled()).toBe(true);
    await page.getByText('Verify the credentials first: only a verified connector can be enabled.').waitFor();
    await shootTop(d, page, 'connector-draft');

    // Verify with the wrong secret: the platform's reason, still draft.
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    const answer = page.getByTestId('verify-answer');
    await answer.waitFor();
    expect(await answer.getAttribute('data-ok')).toBe('false');
    expect(await answer.textContent()).toContain('The platform rejected the credentials: rejected by the platform: code 10014, app secret invalid');
    await expectCurrent(page, 'draft');

    // Fix the secret (a draft stays a draft: no warning needed) and verify again.
    await page.getByRole('button', { name: 'Replace app secret' }).click();
    await page.getByLabel('App secret', { exact: true }).fill(APP_SECRET);
    expect(await page.getByTestId('credentials-warning').count()).toBe(0);
    await page.getByText('Unsaved: App secret').waitFor();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('No unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await page.locator('[data-testid="verify-answer"][data-ok="true"]').waitFor();
    expect(await answer.textContent()).toContain('Credentials verified');
    await expectCurrent(page, 'verified');
    expect(await activeEdges(page)).toEqual(['verified->draft', 'verified->enabled']);

    // Enable: the state follows, and the long connection comes up.
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await expectCurrent(page, 'enabled');
    expect(await activeEdges(page)).toEqual(['enabled->disabled', 'enabled->draft']);
    await page.locator('[data-testid="connector-status"][data-status="connected"]').waitFor();
    expect(await page.getByRole('button', { name: 'Enable', exact: true }).isDisabled()).toBe(true);
    await page.getByText('Already enabled.').waitFor();

    // A test message: sent, recorded by the platform, its trace in the answer and in the log.
    const sent = d.platform.sends.length;
    await page.getByLabel('Target chat ID').fill('oc_target');
    await page.getByLabel('Text', { exact: true }).fill('hello from the dashboard');
    await page.getByRole('button', { name: 'Send test message' }).click();
    await page.locator('[data-testid="test-answer"][data-ok="true"]').waitFor();
    expect(await page.getByTestId('test-answer').textContent()).toContain('Test message sent');
    const [send] = (await d.platform.waitForSends(sent + 1)).slice(sent);
    expect(send).toMatchObject({ chat_id: 'oc_target', text: 'hello from the dashboard' });
    const trace = (await page.getByTestId('test-trace').textContent())!;
    expect(trace).toMatch(/^[0-9a-f-]{36}$/);
    const log = page.getByTestId('connector-log');
    await log.locator('.cx-log-marked[data-action="test_message"][data-level="SUCCESS"]').waitFor();
    expect(await log.locator('.cx-log-marked').first().textContent()).toContain(trace);
    for (const action of ['created', 'verify', 'updated', 'enabled']) expect(await log.locator(`[data-action="${action}"]`).count()).toBeGreaterThan(0);
    await shootTop(d, page, 'connector-enabled');

    // Disable: back to not connected.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await expectCurrent(page, 'disabled');
    expect(await activeEdges(page)).toEqual(['disabled->draft', 'disabled->enabled']);
    await page.locator('[data-testid="connector-status"][data-status="not_connected"]').waitFor();
    await d.platform.waitForNoConnection();

    // New credentials send it back to draft: said before saving, and confirmed.
    await page.getByRole('button', { name: 'Replace app secret' }).click();
    await page.getByLabel('App secret', { exact: true }).fill('a-rotated-secret-value');
    expect(await page.getByTestId('credentials-warning').textContent()).toContain('goes back from disabled to draft');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send the connector back to draft?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save and go back to draft' }).click();
    await expectCurrent(page, 'draft');

    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages the log back to its beginning, and keeps edits over a change made elsewhere', async () => {
    const { page, context, errors } = await d.open('/connector');
    await d.signIn(page);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    const id = (await (await fetch(`${d.t.url}${BASE}`, { headers: { Authorization: `Bearer ${d.t.adminToken}` } })).json()) as { id: number };

    // Someone else renames the connector while this form is open with an edit of its own.
    await page.getByLabel('Rate limit per minute').fill('45');
    const renamed = await d.t.api.patch(`${BASE}/${id.id}`, { connector_name: 'Renamed elsewhere' }, { token: d.t.adminToken });
    expect(renamed.status).toBe(200);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone else changed the connector meanwhile' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Renamed elsewhere');
    expect(await page.getByLabel('Rate limit per minute').inputValue()).toBe('45');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('No unsaved changes').waitFor();
    const saved = await d.t.api.get(BASE, { token: d.t.adminToken });
    expect(saved.body).toMatchObject({ connector_name: 'Renamed elsewhere', rate_limit_per_minute: 45 });

    // More entries than a page holds: "Load older" until the beginning.
    for (let i = 0; i < 25; i++) await d.t.api.patch(`${BASE}/${id.id}`, { prefix_command: `/p${i}` }, { token: d.t.adminToken });
    const all = (await d.t.api.get(`${BASE}/${id.id}/logs?limit=100`, { token: d.t.adminToken })).body.items as unknown[];
    await page.getByRole('button', { name: 'Refresh' }).last().click();
    const entries = page.getByTestId('connector-log').locator('li');
    await page.getByRole('button', { name: 'Load older' }).waitFor();
    while ((await page.getByRole('button', { name: 'Load older' }).count()) > 0) {
      const before = await entries.count();
      await page.getByRole('button', { name: 'Load older' }).click();
      await entries.nth(before).waitFor();
    }
    await page.getByText('The beginning of the log.').waitFor();
    expect(await entries.count()).toBe(all.length);
    expect(await entries.last().getAttribute('data-action')).toBe('created');

    // The stale save was refused by the hub itself (409 on the PATCH naming the form's version); Chromium logs that answer.
    expect(errors).toEqual(['console: Failed to load resource: the server responded with a status of 409 (Conflict)']);
    await context.close();
  });

  it('is usable at a phone width', async () => {
    const { page, context, errors } = await d.open('/connector', { viewport: { width: 390, height: 844 } });
    await d.signIn(page);
    await page.getByTestId('connector-diagram').locator('[data-current="true"]').waitFor();
    // The compact diagram: two states a row, guards as a footnote.
    await page.getByText('if changes credentials').first().waitFor();
    const overflow = await page.locator('main').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await shootTop(d, page, 'connector-phone');
    expect(errors).toEqual([]);
    await context.close();
  });
});
