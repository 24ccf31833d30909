// The Live feed: telemetry sent over agents' sockets and POST /api/messages shows up live (also what
// came while another page was open), reports read as such, filters narrow the list, older history is
// paged in at the end of the list, and 10,000 live rows stay a small window of DOM with follow/pause.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { HubClient, type CodeReviewPayload, type SecurityAlertPayload } from '../../src/client/index.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const review: CodeReviewPayload = {
  verdict: 'request_changes',
  content: 'Two problems in the diff',
  files_reviewed: 2,
  findings: [
    { file: 'src/a.ts', line: 10, severity: 'error', rule: 'no-eval', message: 'eval() runs arbitrary code' },
    { file: 'src/b.ts', severity: 'warning', rule: 'no-console', message: 'console.log left in' },
  ],
};
const alert: SecurityAlertPayload = {
  severity: 'critical',
  content: '1 secret, 1 vulnerable dependency',
  path: '/srv/app',
  findings: [
    { kind: 'secret', severity: 'critical', rule: 'private-key', file: 'deploy/key.pem', line: 1, excerpt: '-----BEGIN RSA PRIVATE KEY----- ****' },
    {
      kind: 'vulnerable_dependency',
      severity: 'high',
      file: 'package-lock.json',
      package: 'lodash',
      version: '4.17.15',
      advisory: 'GHSA-p6mc-m468-83gw',
      title: 'Prototype pollution',
      fixed_in: '4.17.19',
    },
  ],
};

/** Scrolls the feed to its end (row heights are measured as they render, so it may take a few goes). */
async function scrollToEnd(page: Page) {
  await page.waitForFunction(() => {
    const doc = (
      globalThis as unknown as {
        document: { querySelector(s: string): { scrollTop: number; scrollHeight: number; getBoundingClientRect(): { top: number; bottom: number } } | null };
      }
    ).document;
    const scroller = doc.querySelector('[data-testid="feed-scroll"]')!;
    scroller.scrollTop = scroller.scrollHeight;
    const end = doc.querySelector('[data-testid="feed-end"]');
    return end !== null && end.getBoundingClientRect().top < scroller.getBoundingClientRect().bottom;
  });
}

describe('live feed', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  const clients: HubClient[] = [];
  beforeAll(async () => {
    // The bulk test sends thousands of frames per agent socket at once.
    d = await startDashboard({ WS_RATE_LIMIT: '50000', WS_RATE_BURST: '100000' });
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await d?.stop();
  });

  async function agent(username: string) {
    const registered = await d.t.createAgent(username);
    const client = new HubClient({ url: d.t.url, token: registered.api_token });
    await client.connect();
    clients.push(client);
    return { ...registered, client };
  }
  const post = (token: string, body: unknown) => d.t.api.post('/api/messages', body, { token });
  const newest = async (query: string) =>
    ((await d.t.api.get(`/api/messages?${query}`, { token: d.t.adminToken })).body as Array<{ content: string }>)[0]!.content;

  it('shows logs and reports live, including what came while another page was open', async () => {
    const alpha = await agent('alpha-agent');
    const { page, context, errors } = await d.open('/');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await alpha.client.log('WARNING', 'collected while away');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Live feed' }).click();
    const rows = page.getByTestId('feed-row');
    await rows.filter({ hasText: 'collected while away' }).waitFor();

    await alpha.client.log('ERROR', 'Disk full on /var');
    await rows.filter({ hasText: 'Disk full on /var' }).waitFor();
    expect((await post(alpha.api_token, { level: 'SUCCESS', content: 'Posted over HTTP' })).status).toBe(201);
    await rows.filter({ hasText: 'Posted over HTTP' }).waitFor();

    await alpha.client.send({ type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -3.5, conditions: 'light snow', humidity_pct: 80 } });
    await alpha.client.send({ type: 'CODE_REVIEW', payload: review });
    await alpha.client.send({ type: 'SECURITY_ALERT', payload: alert });
    await rows.filter({ hasText: /Oslo: -3[.,]5 °C, light snow/ }).waitFor();
    await rows.filter({ hasText: 'changes requested' }).filter({ hasText: '2 findings (1 error, 1 warning)' }).waitFor();
    const alertRow = rows.filter({ hasText: '1 secret, 1 vulnerable dependency' });
    await alertRow.filter({ hasText: 'critical' }).waitFor();
    // Newest on top.
    expect(await rows.first().textContent()).toContain('1 secret, 1 vulnerable dependency');

    await alertRow.locator('button.feed-main').click();
    await alertRow.getByText('lodash@4.17.15: Prototype pollution').waitFor();
    await d.shoot(page, 'feed');
    await alertRow.getByText('Raw payload').click();
    await alertRow.locator('pre').filter({ hasText: 'GHSA-p6mc-m468-83gw' }).waitFor();

    const phone = await d.open('/feed', { viewport: { width: 390, height: 844 } });
    await d.signIn(phone.page);
    await phone.page.getByTestId('feed-row').filter({ hasText: 'Disk full on /var' }).waitFor();
    await d.shoot(phone.page, 'feed-phone');
    expect(phone.errors).toEqual([]);
    await phone.context.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('narrows by level, sender, type and text, and keeps the filters in the address', async () => {
    const beta = await agent('beta-agent');
    const gamma = await agent('gamma-agent');
    const { page, context, errors } = await d.open('/feed');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const rows = page.getByTestId('feed-row');
    for (const [client, level, text] of [
      [beta.client, 'ERROR', 'beta broke'],
      [beta.client, 'INFO', 'beta fine'],
      [gamma.client, 'ERROR', 'gamma broke'],
      [gamma.client, 'INFO', 'gamma fine'],
    ] as const)
      await client.log(level, text);
    await gamma.client.report('SECURITY_ALERT', { severity: 'critical', content: 'gamma key leaked' });
    await rows.filter({ hasText: 'gamma key leaked' }).waitFor();

    await page.getByLabel('Level').selectOption('ERROR');
    await page.waitForURL(/level=ERROR/);
    await rows.filter({ hasText: 'gamma broke' }).waitFor();
    expect(await rows.filter({ hasText: 'fine' }).count()).toBe(0);
    // Error logs, and critical alerts: a report matches the level it reads as.
    await rows.filter({ hasText: 'gamma key leaked' }).waitFor();
    expect((await rows.allTextContents()).every((t) => t.includes('ERROR') || t.includes('critical'))).toBe(true);

    await page.getByLabel('Sender').selectOption('beta-agent');
    await page.waitForURL(/agent=beta-agent/);
    await rows.filter({ hasText: 'gamma broke' }).waitFor({ state: 'detached' });
    expect(await rows.allTextContents()).toEqual([expect.stringContaining('beta broke')]);
    // A live row that matches shows up; one that does not stays out.
    await gamma.client.log('ERROR', 'gamma again');
    await beta.client.log('ERROR', 'beta again');
    await rows.filter({ hasText: 'beta again' }).waitFor();
    expect(await rows.filter({ hasText: 'gamma again' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await page.getByLabel('Search').fill('FINE');
    await page.waitForURL(/q=FINE/);
    await rows.filter({ hasText: 'beta broke' }).waitFor({ state: 'detached' });
    expect((await rows.allTextContents()).sort()).toEqual([expect.stringContaining('beta fine'), expect.stringContaining('gamma fine')]);

    await page.getByLabel('Search').fill('');
    await page.getByLabel('Sender').selectOption('beta-agent');
    await page.getByLabel('Type').selectOption('SECURITY_ALERT');
    await page.getByText('Nothing in the feed matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await rows.filter({ hasText: 'gamma fine' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages older history in when the list is scrolled to its end', async () => {
    const delta = await d.t.createAgent('delta-agent');
    // 450 stored before the page opens: more than two pages of 200.
    for (let batch = 0; batch < 9; batch++) {
      const sent = await Promise.all(
        Array.from({ length: 50 }, (_, i) => post(delta.api_token, { level: 'INFO', content: `history-${String(batch * 50 + i).padStart(3, '0')}` })),
      );
      expect(sent.every((r) => r.status === 201)).toBe(true);
    }
    const total = Number((await d.t.api.get('/api/messages?limit=1', { token: d.t.adminToken })).headers.get('x-total-count'));
    const oldestHistory = await newest('q=history-&limit=1&offset=449');

    const { page, context, errors } = await d.open('/feed');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const loaded = page.getByTestId('feed-loaded');
    await loaded.filter({ hasText: `200 loaded of ${total.toLocaleString('en-US')} on the hub` }).waitFor();
    const rows = page.getByTestId('feed-row');
    expect(await rows.filter({ hasText: oldestHistory }).count()).toBe(0);

    // Each time the end comes into view, the next page: 400, then all of them.
    await scrollToEnd(page);
    await loaded.filter({ hasText: new RegExp(`^(400|${total}) loaded`) }).waitFor();
    await scrollToEnd(page);
    await loaded.filter({ hasText: `${total.toLocaleString('en-US')} loaded` }).waitFor();
    await scrollToEnd(page);
    await page.getByTestId('feed-end').filter({ hasText: 'This is the beginning of the history.' }).waitFor();
    await rows.filter({ hasText: oldestHistory }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('holds 10,000 live rows with only a window of them in the page, following or paused', async () => {
    const senders = await Promise.all([0, 1, 2, 3, 4].map((k) => agent(`bulk-${k}`)));
    const { page, context, errors } = await d.open('/feed?q=bulk-row');
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    await page.getByTestId('feed-end').and(page.locator('[data-history="done"]')).waitFor();

    // Real frames: five agent sockets, 2,000 SYSTEM_LOG each, all at once.
    await Promise.all(senders.map(({ client }, k) => Promise.all(Array.from({ length: 2000 }, (_, i) => client.log('INFO', `bulk-row ${k}-${i}`)))));
    await page.getByTestId('feed-count').filter({ hasText: '10,000 messages match' }).waitFor({ timeout: 60_000 });
    const rows = page.getByTestId('feed-row');
    const inDom = await rows.count();
    expect(inDom).toBeGreaterThan(5);
    expect(inDom).toBeLessThan(200);
    const top = await newest('q=bulk-row&limit=1');
    const bottom = await newest('q=bulk-row&limit=1&offset=9999');
    await rows.first().filter({ hasText: top }).waitFor();

    await scrollToEnd(page);
    await rows.filter({ hasText: bottom }).waitFor();
    await page.getByTestId('feed-end').filter({ hasText: 'This is the beginning of the history.' }).waitFor();
    expect(await rows.count()).toBeLessThan(200);

    // Scrolled away, new rows wait above instead of moving the list.
    for (const n of [1, 2, 3]) await senders[0]!.client.log('INFO', `bulk-row late-${n}`);
    await page.getByTestId('feed-new').filter({ hasText: '3 new' }).waitFor();
    await page.getByTestId('feed-count').filter({ hasText: '10,003 messages match' }).waitFor();
    expect(await rows.filter({ hasText: bottom }).isVisible()).toBe(true);
    expect(await rows.filter({ hasText: 'late-3' }).count()).toBe(0);

    await page.getByTestId('feed-new').click();
    await rows.first().filter({ hasText: 'bulk-row late-3' }).waitFor();

    // Paused by hand at the top: the same, until Follow live.
    await page.getByRole('button', { name: 'Pause' }).click();
    await senders[1]!.client.log('INFO', 'bulk-row paused-1');
    await page.getByTestId('feed-new').filter({ hasText: '1 new' }).waitFor();
    expect(await rows.first().textContent()).toContain('bulk-row late-3');
    await page.getByRole('button', { name: 'Follow live' }).click();
    await rows.first().filter({ hasText: 'bulk-row paused-1' }).waitFor();
    expect(await rows.count()).toBeLessThan(200);
    expect(errors).toEqual([]);
    await context.close();
  });
});
