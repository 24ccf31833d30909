// The dashboard's pictures, end to end: real agents send reports through the hub (WebSocket), a
// platform sends chats to the connector, and each chart is loaded in Chromium and read back — the
// numbers it shows (its table, its data attributes) against what was sent. Also the honest freshness
// while the socket reconnects, approval cards that say who decided, and screenshots of every changed
// page in light and dark at 1440×900 and 390×844.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HubClient } from '../../src/client/index.js';
import { messageEvent } from '../helpers/fakePlatform.js';
import { textReply } from '../helpers/fakeModel.js';
import { startTcpRelay } from '../helpers/tcpRelay.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const LAPTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const BUTLER_ID = 2;
const BASE = '/api/integrations/chatplatform';
const APP_ID = 'cli_0123456789abcdef';
const APP_SECRET = 'charts-app-secret';

/** The numbers of a chart's table: series label → the values of its non-empty rows, in time order. */
async function tableOf(page: Page, testId: string): Promise<Record<string, number[]>> {
  return page
    .getByTestId(testId)
    .locator('table td[data-series]')
    .evaluateAll((cells) => {
      const out: Record<string, number[]> = {};
      for (const cell of cells) {
        const value = cell.getAttribute('data-value');
        if (value === null || value === '') continue;
        (out[cell.getAttribute('data-series')!] ??= []).push(Number(value));
      }
      return out;
    });
}

const sum = (values: readonly number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);

/** The y-axis ticks a chart drew (uPlot paints them on its canvas; the chart says them on its box). */
async function yTicksOf(page: Page, testId: string): Promise<number[]> {
  const canvas = page.getByTestId(testId).locator('.chart-canvas[data-y-ticks]');
  await canvas.waitFor();
  return (await canvas.getAttribute('data-y-ticks'))!.split(',').map(Number);
}

/** A chart's legend before any hover: each series' label and value, as shown. */
async function legendOf(page: Page, testId: string): Promise<string[]> {
  return page
    .getByTestId(testId)
    .locator('.u-legend .u-series')
    .evaluateAll((rows) => rows.map((r) => `${r.querySelector('.u-label')?.textContent ?? ''}=${r.querySelector('.u-value')?.textContent ?? ''}`));
}

/** A scale a person can read: at least two ticks, rising, the top one above 0. */
function expectReadableAxis(ticks: number[], atLeast: number) {
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
  expect(ticks.at(-1)!).toBeGreaterThanOrEqual(atLeast);
  expect(ticks.at(-1)!).toBeGreaterThan(0);
}

/** Whether any label of the connector diagram lies over a state's box (on screen, as drawn). */
async function labelsOverBoxes(page: Page): Promise<string[]> {
  return page.getByTestId('connector-diagram').evaluate((figure) => {
    const boxes = [...figure.querySelectorAll('.cx-node')].map((n) => ({
      state: n.getAttribute('data-state'),
      r: n.querySelector('rect')!.getBoundingClientRect(),
    }));
    const hits: string[] = [];
    for (const text of figure.querySelectorAll('.cx-edge text')) {
      const t = text.getBoundingClientRect();
      for (const b of boxes)
        if (t.left < b.r.right && b.r.left < t.right && t.top < b.r.bottom && b.r.top < t.bottom) hits.push(`${text.textContent} over ${b.state}`);
    }
    return hits;
  });
}

/** Screenshots of the page at both widths (light and dark each). */
/** Waits until the Overview's online chart ends at `n` agents online (its table's last row). */
async function onlineNow(page: Page, n: number) {
  await page.locator(`[data-testid="online-chart"] tbody tr:last-child td[data-series="online"][data-value="${n}"]`).waitFor({ state: 'attached' });
}

async function shootBoth(d: Dashboard, path: string, name: string, ready: (page: Page) => Promise<void>) {
  for (const [viewport, suffix] of [
    [LAPTOP, ''],
    [PHONE, '-phone'],
  ] as const) {
    const { page, context, errors } = await d.open(path, { viewport });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    await ready(page);
    await d.shoot(page, `${name}${suffix}`);
    expect(errors).toEqual([]);
    await context.close();
  }
}

describe('dashboard charts', { timeout: E2E_TIMEOUT * 2 }, () => {
  let d: Dashboard;
  const agents: HubClient[] = [];
  let flaky: { id: number; username: string; api_token: string };

  async function agent(username: string) {
    const registered = await d.t.createAgent(username);
    const client = new HubClient({ url: d.t.url, token: registered.api_token });
    await client.connect();
    agents.push(client);
    return { registered, client };
  }

  beforeAll(async () => {
    d = await startDashboard({ CHATPLATFORM_WS_ENABLED: 'true', CHATPLATFORM_TIMEOUT_MS: '2000' });
    d.platform.registerApp(APP_ID, APP_SECRET);

    // Real agents, reporting over their sockets; each send resolves once the hub stored it.
    const w = await agent('weather-station');
    await w.client.send({ type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -3.4567, humidity_pct: 80 } });
    await w.client.send({ type: 'WEATHER_UPDATE', payload: { location: 'Bergen', temperature_c: 4.25 } });
    await w.client.send({ type: 'WEATHER_UPDATE', payload: { location: 'Oslo', temperature_c: -2 } });
    const r = await agent('code-reviewer');
    const finding = { file: 'src/app.ts', line: 3, severity: 'warning' as const, rule: 'no-console', message: 'console.log left in' };
    await r.client.send({ type: 'CODE_REVIEW', payload: { verdict: 'approve', content: 'looks fine', findings: [finding, finding] } });
    await r.client.send({ type: 'CODE_REVIEW', payload: { verdict: 'request_changes', content: 'one problem', findings: [finding] } });
    await r.client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'review queue empty' } });
    await r.client.send({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'review queue has 1' } });
    await r.client.send({ type: 'SYSTEM_LOG', payload: { level: 'ERROR', content: 'could not fetch the diff' } });
    const s = await agent('security-scanner');
    await s.client.send({ type: 'SECURITY_ALERT', payload: { severity: 'high', content: 'a secret in the repository' } });
    // An agent that comes and goes: offline on the Overview, not counted online.
    const f = await agent('flaky-agent');
    flaky = f.registered;
    await f.client.close();
    agents.pop();
  }, E2E_TIMEOUT);
  afterAll(async () => {
    for (const a of agents) await a.close().catch(() => undefined);
    await d?.stop();
  });

  it('Overview: per-agent sparklines, agents online over time and report tallies show what the agents sent', async () => {
    const { page, context, errors } = await d.open('/', { viewport: LAPTOP });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const row = (name: string) => page.locator(`[data-testid="agent-row"][data-agent="${name}"]`);
    await row('weather-station').locator('[data-testid="agent-rate"][data-total="3"]').waitFor();
    await row('code-reviewer').locator('[data-testid="agent-rate"][data-total="5"]').waitFor();
    await row('security-scanner').locator('[data-testid="agent-rate"][data-total="1"]').waitFor();
    await row('flaky-agent').locator('[data-testid="agent-rate"][data-total="0"]').waitFor();
    // Each value of a sparkline is one minute; they add up to what was sent.
    const values = (await row('code-reviewer').getByTestId('agent-rate').getAttribute('data-values'))!.split(',').map(Number);
    expect(values).toHaveLength(60);
    expect(sum(values)).toBe(5);
    // One line for the whole roster, its last point now: three online (the flaky agent is gone).
    await onlineNow(page, 3);
    expect(await row('flaky-agent').getByText('disconnected').count()).toBe(1);

    const tally = async (testId: string) =>
      page
        .getByTestId(testId)
        .locator('[data-key]')
        .evaluateAll((rows) => Object.fromEntries(rows.map((r) => [r.getAttribute('data-key'), Number(r.getAttribute('data-count'))])));
    await page.locator('[data-testid="tally-levels"] [data-key="INFO"][data-count="2"]').waitFor();
    expect(await tally('tally-levels')).toEqual({ INFO: 2, ERROR: 1 });
    expect(await tally('tally-verdicts')).toEqual({ approve: 1, request_changes: 1 });
    expect(await tally('tally-severities')).toEqual({ high: 1 });

    // The line says what it counts: logs and reports (chat is not counted).
    expect(await row('code-reviewer').getByTestId('agent-rate-label').textContent()).toBe('Last hour: 5 reports');
    expect(await row('security-scanner').getByTestId('agent-rate-label').textContent()).toBe('Last hour: 1 report');

    // A new report moves the sparkline without a reload.
    await agents[0]!.send({ type: 'WEATHER_UPDATE', payload: { location: 'Bergen', temperature_c: 5 } });
    await row('weather-station').locator('[data-testid="agent-rate"][data-total="4"]').waitFor();
    expect(await row('weather-station').getByTestId('agent-rate-label').textContent()).toBe('Last hour: 4 reports');

    // The Agents page counts as the Overview does: Butler (online, listed there) is not among the online agents.
    const online = Number(await page.getByTestId('count-online').textContent());
    const registered = Number(await page.getByTestId('count-total').textContent());
    expect(online).toBe(3);
    await page.getByRole('link', { name: 'Agents', exact: true }).first().click();
    const count = page.getByTestId('agents-count');
    await count.waitFor();
    expect(await count.textContent()).toBe(`${registered} registered · ${online} online (Butler not counted)`);
    expect(errors).toEqual([]);
    await context.close();
    await shootBoth(d, '/', 'charts-overview', async (p) => {
      await p.locator('[data-testid="agent-row"][data-agent="weather-station"] [data-testid="agent-rate"][data-total="4"]').waitFor();
    });
    await shootBoth(d, '/agents', 'charts-agents', async (p) => {
      await p
        .getByTestId('agents-count')
        .filter({ hasText: `${registered} registered · ${online} online (Butler not counted)` })
        .waitFor();
    });
  });

  it('Live feed: the rate graph follows the filters, and a sender’s readings are plotted per location', async () => {
    const { page, context, errors } = await d.open('/feed', { viewport: LAPTOP });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const rateTotal = page.getByTestId('rate-total');
    await rateTotal.filter({ hasText: /^10 in the hour/ }).waitFor();
    const counts = (await tableOf(page, 'rate-chart'))['messages']!;
    expect(sum(counts)).toBe(10);
    // A scale up to at least the busiest minute, not a lone 0; the legend shows the latest minute before any hover.
    expectReadableAxis(await yTicksOf(page, 'rate-chart'), Math.max(...counts));
    const legend = await legendOf(page, 'rate-chart');
    expect(legend).toHaveLength(2);
    expect(legend[0]).toMatch(/^Time=\d\d:\d\d(?: [AP]M)? \(latest\)$/);
    expect(legend[1]).toMatch(/^messages=\d+$/);
    // The review's verdict badge is whole ("changes requested", not cut at its column's edge).
    const badge = page.locator('.feed-main .badge', { hasText: 'changes requested' });
    await badge.waitFor();
    expect(await badge.evaluate((b) => b.scrollWidth <= b.clientWidth)).toBe(true);

    await page.getByLabel('Sender').selectOption('code-reviewer');
    await rateTotal.filter({ hasText: '5 in the hour · filtered' }).waitFor();
    expect(sum((await tableOf(page, 'rate-chart'))['messages'])).toBe(5);
    await page.getByLabel('Level').selectOption('ERROR');
    await rateTotal.filter({ hasText: '1 in the hour · filtered' }).waitFor();
    await page.getByLabel('Level').selectOption('');
    // The reviewer's findings per review.
    await page.getByTestId('readings-chart').waitFor();
    expect(await tableOf(page, 'readings-chart')).toEqual({ 'code-reviewer': [2, 1] });

    await page.getByLabel('Sender').selectOption('weather-station');
    await rateTotal.filter({ hasText: '4 in the hour · filtered' }).waitFor();
    await page
      .getByTestId('readings-chart')
      .filter({ has: page.locator('th', { hasText: 'Oslo' }) })
      .waitFor();
    expect(await tableOf(page, 'readings-chart')).toEqual({ Oslo: [-3.4567, -2], Bergen: [4.25, 5] });
    // Readings get a scale around them, below zero included; the legend names the latest values.
    const readingTicks = await yTicksOf(page, 'readings-chart');
    expect(readingTicks[0]!).toBeLessThanOrEqual(-3.4567);
    expect(readingTicks.at(-1)!).toBeGreaterThanOrEqual(5);
    expect(await legendOf(page, 'readings-chart')).not.toContainEqual(expect.stringMatching(/=–$/));
    // The legend and the table say readings to two decimals at most.
    expect(await page.getByTestId('readings-chart').locator('td[data-value="-3.4567"]').textContent()).toBe('-3.46 °C');
    await page.getByTestId('readings-field').selectOption('humidity_pct');
    await page.getByTestId('readings-chart').locator('td[data-series="Oslo"][data-value="80"]').waitFor();
    expect(errors).toEqual([]);
    await context.close();
    await shootBoth(d, '/feed?agent=weather-station', 'charts-feed', async (p) => {
      await p.getByTestId('readings-chart').locator('td[data-series="Bergen"][data-value="5"]').waitFor();
      await p.getByTestId('rate-chart').locator('canvas').first().waitFor();
      expectReadableAxis(await yTicksOf(p, 'rate-chart'), 1);
    });
    // Every sender, so the review with its "changes requested" badge is on the picture, whole at both widths.
    await shootBoth(d, '/feed', 'charts-feed-all', async (p) => {
      expectReadableAxis(await yTicksOf(p, 'rate-chart'), 1);
      const whole = p.locator('.feed-main .badge', { hasText: 'changes requested' });
      await whole.waitFor();
      expect(await whole.evaluate((b) => b.scrollWidth <= b.clientWidth)).toBe(true);
    });
  });

  it('Connector: outcomes per minute from platform chats the hub accepted, filtered and answered', async () => {
    const created = await d.t.api.post(
      BASE,
      { app_id: APP_ID, app_secret: APP_SECRET, allowed_chat_ids: [], rate_limit_per_minute: 600 },
      { token: d.t.adminToken },
    );
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await d.t.api.post(`${BASE}/${id}/verify-callback`, {}, { token: d.t.adminToken })).body).toMatchObject({ ok: true });
    expect((await d.t.api.patch(`${BASE}/${id}/enable`, { enabled: true }, { token: d.t.adminToken })).body).toMatchObject({ state: 'enabled' });
    await d.platform.waitForConnections(1);
    // The SDK client listens once the hub reports the long connection up.
    await vi.waitFor(async () => expect((await d.t.api.get(BASE, { token: d.t.adminToken })).body.status).toBe('connected'), { timeout: 10_000, interval: 50 });
    d.model.enqueue(textReply('The weather station is online.'), textReply('Nothing to review.'));
    const sentBefore = d.platform.sends.length;
    for (const event of [
      messageEvent({ chatId: 'oc_dm_ana', openId: 'ou_ana', text: 'is the weather station up?' }, APP_ID),
      messageEvent({ chatId: 'oc_dm_ana', openId: 'ou_ana', text: 'anything to review?' }, APP_ID),
      // In a group without mentioning the bot: filtered.
      messageEvent({ chatId: 'oc_group', chatType: 'group', openId: 'ou_ana', text: 'chatter' }, APP_ID),
    ]) {
      await d.platform.waitForAck(d.platform.pushEvent(event), 3000);
    }
    await d.platform.waitForSends(sentBefore + 2);
    await d.t.hub.connector.settled();

    const { page, context, errors } = await d.open('/connector', { viewport: LAPTOP });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const totals = page.getByTestId('outcome-totals');
    await totals.filter({ hasText: '2 sent' }).waitFor();
    expect(await totals.textContent()).toBe('2 accepted · 1 filtered · 2 sent · 0 failed');
    const table = await tableOf(page, 'outcomes-chart');
    expect([sum(table['accepted']), sum(table['filtered']), sum(table['sent']), sum(table['failed'])]).toEqual([2, 1, 2, 0]);
    // The lifecycle's transitions read as actions.
    const labels = await page.getByTestId('connector-diagram').locator('.cx-edge text').allTextContents();
    expect(labels.join(' ')).toContain('verify');
    expect(labels.join(' ')).not.toMatch(/VERIFIED|TEST_MESSAGE|ENABLE\b/);
    expect(await labelsOverBoxes(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
    await shootBoth(d, '/connector', 'charts-connector', async (p) => {
      await p.getByTestId('outcome-totals').filter({ hasText: '2 sent' }).waitFor();
      // On a phone as on a laptop, no transition's label lies over a state's box.
      await p.locator('[data-testid="connector-diagram"][data-current="enabled"]').waitFor();
      expect(await labelsOverBoxes(p)).toEqual([]);
      expectReadableAxis(await yTicksOf(p, 'outcomes-chart'), 1);
    });
  });

  it('Actors: sockets, commit queue and event-loop lag over the session; no node line on a single hub', async () => {
    const { page, context, errors } = await d.open('/actors', { viewport: LAPTOP });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    // Three agents and this page's own socket (the platform's connection is not a socket of the hub).
    const sockets = page.getByTestId('runtime-sockets');
    await sockets.filter({ hasText: /^\d+$/ }).waitFor();
    const live = Number(await sockets.textContent());
    const router = (await d.t.api.get('/api/admin/actors', { token: d.t.adminToken })).body.router as { endpoints: number };
    expect(live).toBe(router.endpoints);
    expect(live).toBeGreaterThanOrEqual(4);
    const table = await tableOf(page, 'runtime-chart-sockets');
    expect(table['Open sockets']!.at(-1)).toBe(live);
    await page.getByTestId('runtime-chart-loop_lag_ms').locator('canvas').first().waitFor();
    // The event-loop lag from 0 to a round number above the worst delay, and the legend's latest value in ms.
    // (Read again until the table and the canvas show the same sample: the page reads the hub every 3 s.)
    await vi.waitFor(
      async () => {
        const lag = (await tableOf(page, 'runtime-chart-loop_lag_ms'))['Event-loop lag']!;
        const lagTicks = await yTicksOf(page, 'runtime-chart-loop_lag_ms');
        expect(lagTicks[0]).toBe(0);
        expectReadableAxis(lagTicks, Math.max(...lag));
      },
      { timeout: 10_000, interval: 200 },
    );
    expect((await legendOf(page, 'runtime-chart-loop_lag_ms'))[1]).toMatch(/^Event-loop lag=[\d.,]+ ms$/);
    expectReadableAxis(await yTicksOf(page, 'runtime-chart-sockets'), 1);
    expect(await page.getByTestId('actors-node').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
    await shootBoth(d, '/actors', 'charts-actors', async (p) => {
      await p.getByTestId('runtime-chart-queue_depth').locator('canvas').first().waitFor();
    });
  });

  it('greys presence and Butler while reconnecting ("as of"), and refreshes on reconnect', async () => {
    const relay = await startTcpRelay(d.t.hub.port);
    try {
      const { page, context, errors } = await d.open('/', { base: relay.url, viewport: LAPTOP });
      page.setDefaultTimeout(20_000);
      await d.signIn(page);
      await page.locator('[data-testid="agent-row"][data-agent="weather-station"][data-online="true"]').waitFor();
      expect(await page.getByTestId('stale').count()).toBe(0);
      relay.retarget(undefined);
      relay.drop();
      await page.locator('[data-testid="connection"][data-state="waiting"]').waitFor();
      await page.getByTestId('stale').first().waitFor();
      expect(await page.getByText(/Presence as of \d\d:\d\d/).count()).toBe(1);
      expect(await page.getByText(/Butler's state as of \d\d:\d\d/).count()).toBe(1);
      // The row no longer says "now": it says when it was last known.
      const weatherRow = page.locator('[data-testid="agent-row"][data-agent="weather-station"]');
      expect(await weatherRow.locator('.agent-seen').textContent()).toMatch(/as of \d\d:\d\d/);
      await d.shoot(page, 'charts-overview-stale');
      // Meanwhile the flaky agent comes back; after the reconnect the page shows it.
      const again = new HubClient({ url: d.t.url, token: flaky.api_token });
      await again.connect();
      agents.push(again);
      relay.retarget(d.t.hub.port);
      await page.locator('[data-testid="connection"][data-state="open"]').waitFor({ timeout: 45_000 });
      await page.getByTestId('stale').waitFor({ state: 'detached' });
      await page.locator('[data-testid="agent-row"][data-agent="flaky-agent"][data-online="true"]').waitFor();
      await onlineNow(page, 4);
      expect(errors.filter((e) => !/WebSocket|ERR_CONNECTION|net::|Failed to fetch|status of 5\d\d/.test(e))).toEqual([]);
      await context.close();
    } finally {
      await relay.close();
    }
  });

  it('on a phone: the menu has a backdrop that closes it, and the feed’s filters fold away', async () => {
    const { page, context, errors } = await d.open('/feed', { viewport: PHONE });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const filters = page.getByRole('search', { name: 'Filter the feed' });
    expect(await filters.isVisible()).toBe(false);
    const toggle = page.getByRole('button', { name: /^Filters/ });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    await filters.waitFor({ state: 'visible' });
    await page.getByLabel('Sender').selectOption('weather-station');
    await page.getByRole('button', { name: 'Filters (on)' }).waitFor();
    await d.shoot(page, 'charts-feed-phone-filters');

    await page.getByRole('button', { name: 'Menu' }).click();
    const nav = page.getByRole('navigation', { name: 'Pages' });
    await nav.waitFor({ state: 'visible' });
    await page.getByTestId('menu-backdrop').waitFor();
    await d.shoot(page, 'charts-menu-phone');
    // A tap beside the menu (on the backdrop) closes it.
    await page.mouse.click(360, 500);
    await nav.waitFor({ state: 'hidden' });
    expect(await page.getByTestId('menu-backdrop').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('approval cards say who decided and when; the Monitor renders Butler’s markdown', async () => {
    const worker = await d.startEchoAgent('echo-worker');
    d.model.enqueue(
      {
        steps: [
          { toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: worker.id, command: 'echo **done**', reasoning: 'asked' }) } },
        ],
      },
      textReply('I asked for your approval.'),
    );
    const admin = new HubClient({ url: d.t.url, token: d.t.adminToken });
    await admin.connect();
    const request = new Promise<string>((resolve) => admin.on('AUTH_REQUEST', (f) => resolve(f.payload.action_id)));
    await admin.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'have the echo worker say done' });
    const actionId = await request;
    await admin.rest.chat.authRespond(actionId, true);
    await admin.close();

    await shootBoth(d, '/approvals?status=approved', 'charts-approvals', async (p) => {
      await p
        .getByTestId('approval-title')
        .filter({ hasText: /^Approved by you at \d\d:\d\d/ })
        .waitFor();
    });
    await shootBoth(d, `/chat/${BUTLER_ID}`, 'charts-chat-approved', async (p) => {
      await p
        .getByTestId('auth-card-title')
        .filter({ hasText: /^Approved by you at \d\d:\d\d/ })
        .waitFor();
    });
    await shootBoth(d, `/monitor/${worker.id}`, 'charts-monitor', async (p) => {
      // The agent's answer, "**done**", rendered as markdown.
      await p.locator('[data-testid="monitor-entry"] .mon-text strong', { hasText: 'done' }).first().waitFor();
    });
  });

  it("an approved command waiting for a silent agent says so, for how long so far, and the hub's reply timeout", async () => {
    const silent = await d.t.createAgent('silent-worker');
    const quiet = new HubClient({ url: d.t.url, token: silent.api_token });
    agents.push(quiet);
    await quiet.connect();
    d.model.enqueue(
      { steps: [{ toolCall: { name: 'command_agent', arguments: JSON.stringify({ target_agent_id: silent.id, command: 'reindex', reasoning: 'asked' }) } }] },
      textReply('I asked for your approval.'),
    );
    const admin = new HubClient({ url: d.t.url, token: d.t.adminToken });
    await admin.connect();
    const request = new Promise<string>((resolve) => admin.on('AUTH_REQUEST', (f) => resolve(f.payload.action_id)));
    // Butler's own answer ("I asked for your approval.") comes before the decision, as when a person reads it first.
    const asked = new Promise<void>((resolve) =>
      admin.on('CHAT', (f) => {
        if (f.sender_id === BUTLER_ID && String(f.payload).includes('I asked for your approval')) resolve();
      }),
    );
    await admin.send({ type: 'CHAT', target_id: BUTLER_ID, payload: 'have the silent worker reindex' });
    const actionId = await request;
    await asked;
    await admin.rest.chat.authRespond(actionId, true);
    await admin.close();

    const { page, context, errors } = await d.open(`/chat/${BUTLER_ID}`, { viewport: LAPTOP });
    page.setDefaultTimeout(20_000);
    await d.signIn(page);
    const waiting = page.locator(`[data-testid="auth-card"][data-action="${actionId}"] [data-testid="auth-waiting"]`);
    // BUTLER_AGENT_REPLY_TIMEOUT is the default here: 60 s.
    await waiting.filter({ hasText: 'Butler waits up to 1 min and tells you if it does not answer.' }).waitFor();
    expect((await waiting.textContent())?.trim()).toMatch(/^Waiting for silent-worker’s answer, \d+ s so far\./);
    expect(errors).toEqual([]);
    await context.close();
  });
});
