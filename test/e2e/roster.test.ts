// The roster at scale (issue 35): 100k agents registered (inserted in bulk into the store) and half
// of them online. The Overview and the Agents page load within budget, holding a page of agents and
// the hub's counts and series rather than the roster; a search finds one agent among them; and the
// page answers clicks while hundreds of real agent sockets connect and disconnect. The figures
// (first load, JS heap after a collection, click latency) go to test-results/roster-scale.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';
import { insertAgents } from '../helpers/e2e/roster.js';
import { connectWs, type WsClient } from '../helpers/wsClient.js';

const BULK = 100_000;
const LIVE = 300;
/** Budgets on this shared 2-core machine (measured figures are in the report, well below). */
const LOAD_BUDGET_MS = 8_000;
const HEAP_BUDGET_BYTES = 40 * 1024 * 1024;
/**
 * A click on the pager until the next page is drawn, made while a round of 300 presence changes is
 * under way: that includes the hub's read, which shares this test process with the hub's own
 * connect handling and the 300 agent sockets; the page's main thread itself must answer in far less.
 */
const CLICK_BUDGET_MS = 3_000;
const MAIN_THREAD_BUDGET_MS = 250;

const figures: Record<string, number> = {};

/** JS heap in use after a full collection, as Chromium counts it. */
async function heapAfterGc(context: BrowserContext, page: Page): Promise<number> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

describe('roster with 100k agents', { timeout: E2E_TIMEOUT * 3 }, () => {
  let d: Dashboard;
  const live: Array<{ id: number; username: string; api_token: string }> = [];
  const sockets = new Map<number, WsClient>();
  let registered = 0;
  let onlineInStore = 0;

  beforeAll(async () => {
    d = await startDashboard();
    // Agents that really connect: registered through the API (each has a token).
    for (let i = 0; i < LIVE; i += 25) {
      live.push(...(await Promise.all(Array.from({ length: 25 }, (_, j) => d.t.createAgent(`live-${i + j}`)))));
    }
    const started = performance.now();
    await insertAgents(d.t.hub.store.db, { prefix: 'bulk', count: BULK, onlineEvery: 2, kinds: ['weather', 'review', 'scanner', 'generic'] });
    figures.bulk_insert_ms = Math.round(performance.now() - started);
    registered = BULK + LIVE;
    onlineInStore = BULK / 2;
  }, E2E_TIMEOUT * 2);
  afterAll(async () => {
    await Promise.all([...sockets.values()].map((s) => s.close().catch(() => undefined)));
    await d?.stop();
    mkdirSync(join(process.cwd(), 'test-results'), { recursive: true });
    writeFileSync(join(process.cwd(), 'test-results/roster-scale.json'), `${JSON.stringify(figures, null, 2)}\n`);
    console.log('roster scale figures', figures);
  });

  /** A signed-in context, then a fresh tab on `path` timed from navigation until `ready`. */
  async function firstLoad(path: string, ready: (page: Page) => Promise<void>) {
    const { page: login, context, errors } = await d.open('/login');
    login.setDefaultTimeout(30_000);
    await d.signIn(login);
    await login.close();
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
    const started = performance.now();
    await page.goto(path);
    await ready(page);
    const ms = Math.round(performance.now() - started);
    return { page, context, errors, ms, heap: await heapAfterGc(context, page) };
  }

  it('loads the Overview within budget: counts, the online chart and one page of agents', async () => {
    const { page, context, errors, ms, heap } = await firstLoad('/', async (p) => {
      await p
        .getByTestId('count-total')
        .filter({ hasText: registered.toLocaleString('en-US') })
        .waitFor();
      await p
        .getByTestId('count-online')
        .filter({ hasText: onlineInStore.toLocaleString('en-US') })
        .waitFor();
      await p.locator('[data-testid="online-chart"] canvas').first().waitFor();
      await p.locator('[data-testid="agent-row"]').nth(19).waitFor();
    });
    figures.overview_first_load_ms = ms;
    figures.overview_heap_bytes = heap;
    expect(ms).toBeLessThan(LOAD_BUDGET_MS);
    expect(heap).toBeLessThan(HEAP_BUDGET_BYTES);
    // One page on screen, never the roster.
    expect(await page.locator('[data-testid="agent-row"]').count()).toBe(20);
    await page
      .getByTestId('roster-range')
      .filter({ hasText: `1–20 of ${registered.toLocaleString('en-US')}` })
      .waitFor();
    await d.shoot(page, 'roster-overview-100k');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('loads the Agents page within budget, and its search finds one agent among 100k', async () => {
    const { page, context, errors, ms, heap } = await firstLoad('/agents', async (p) => {
      await p
        .getByTestId('agents-count')
        .filter({ hasText: `${registered.toLocaleString('en-US')} registered` })
        .waitFor();
      await p.getByTestId('agent-live-0').waitFor();
    });
    figures.agents_first_load_ms = ms;
    figures.agents_heap_bytes = heap;
    expect(ms).toBeLessThan(LOAD_BUDGET_MS);
    expect(heap).toBeLessThan(HEAP_BUDGET_BYTES);

    const started = performance.now();
    await page.getByLabel('Search agents by name').fill('bulk-77777');
    await page.getByTestId('agent-bulk-77777').waitFor();
    figures.agents_search_ms = Math.round(performance.now() - started);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Presence').selectOption('OFFLINE');
    // bulk-77777 is odd, so offline: still found; online, it is not.
    await page.getByTestId('agent-bulk-77777').waitFor();
    await page.getByLabel('Presence').selectOption('ONLINE');
    await page.getByText('No agent matches “bulk-77777” (online).').waitFor();
    await d.shoot(page, 'roster-agents-search');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("finds an agent past the pickers' first page: the chat's peers and the monitor's agents search the hub", async () => {
    const { page, context, errors } = await firstLoad('/chat', async (p) => {
      await p.getByText('The first 1,000 agents are listed: type a name to search them all.').waitFor();
    });
    // bulk-77777 has an id far past the first 1,000 read for the pickers.
    await page.getByLabel('Filter agents').fill('bulk-77777');
    await page.locator('[data-testid="peer"]').filter({ hasText: 'bulk-77777' }).waitFor();
    await page.locator('[data-testid="peer"]').filter({ hasText: 'bulk-77777' }).click();
    await page.waitForURL(/\/chat\/\d+/);
    // Opened again by its address (a reload, a link), the agent is read on its own.
    await page.reload();
    await page.locator('.conv-head').filter({ hasText: 'bulk-77777' }).waitFor();

    await page.goto('/monitor');
    await page.getByText('The first 1,000 agents are listed: type a name to search them all.').waitFor();
    await page.getByLabel('Filter agents').fill('bulk-88888');
    await page.getByRole('link', { name: /bulk-88888/ }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('answers clicks within budget while hundreds of agents connect and disconnect over real sockets', async () => {
    const { page, context, errors } = await firstLoad('/', async (p) => {
      await p.locator('[data-testid="agent-row"]').nth(19).waitFor();
    });
    // The first page lists the live agents (lowest ids): their rows follow presence on screen.
    const firstRow = page.locator(`[data-testid="agent-row"][data-agent="${live[0]!.username}"]`);
    await firstRow.and(page.locator('[data-online="false"]')).waitFor();

    const connectAll = (agents: typeof live) =>
      Promise.all(
        agents.map(async (a) => {
          sockets.set(a.id, await connectWs(d.t.url, a.api_token));
        }),
      );
    const disconnectAll = (agents: typeof live) =>
      Promise.all(
        agents.map(async (a) => {
          await sockets.get(a.id)?.close();
          sockets.delete(a.id);
        }),
      );
    await connectAll(live);
    await firstRow.and(page.locator('[data-online="true"]')).waitFor();

    // Each click is made while a round of LIVE presence changes streams in: half the live agents
    // disconnect and connect again over their sockets (the hub, the agents and the browser share
    // this machine's two cores, so the rounds are bounded rather than as fast as a loop can go).
    const latencies: number[] = [];
    const api: number[] = [];
    const mainThread: number[] = [];
    for (let i = 0; i < 6; i++) {
      const half = live.filter((_, k) => k % 2 === i % 2);
      const round = disconnectAll(half).then(() => connectAll(half));
      const next = i % 2 === 0;
      const started = performance.now();
      await page.getByRole('button', { name: next ? 'Next' : 'Previous' }).click();
      await page
        .getByTestId('roster-range')
        .filter({ hasText: next ? /^21–40 of/ : /^1–20 of/ })
        .waitFor();
      latencies.push(performance.now() - started);
      // Where the time goes: the hub's answer to the same read, and a round trip to the page's main thread.
      const asked = performance.now();
      await d.t.api.get('/api/users/agents?exclude_role=BUTLER&page=2&limit=20', { token: d.t.adminToken });
      api.push(performance.now() - asked);
      const evaluated = performance.now();
      await page.evaluate(() => 1);
      mainThread.push(performance.now() - evaluated);
      await round;
    }
    const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[xs.length >> 1]!);
    figures.page_read_during_churn_median_ms = median(api);
    figures.page_read_during_churn_max_ms = Math.round(Math.max(...api));
    figures.main_thread_roundtrip_max_ms = Math.round(Math.max(...mainThread));
    figures.main_thread_roundtrip_median_ms = median(mainThread);
    figures.click_latency_max_ms = Math.round(Math.max(...latencies));
    figures.click_latency_median_ms = median(latencies);
    figures.presence_changes = LIVE + 6 * LIVE;
    expect(Math.max(...latencies)).toBeLessThan(CLICK_BUDGET_MS);
    expect(Math.max(...mainThread)).toBeLessThan(MAIN_THREAD_BUDGET_MS);
    // Once it settles, every live agent is online again and the counts say so.
    const expected = (onlineInStore + LIVE).toLocaleString('en-US');
    await page
      .getByTestId('count-online')
      .filter({ hasText: new RegExp(`^${expected}$`) })
      .waitFor();
    await firstRow.and(page.locator('[data-online="true"]')).waitFor();
    figures.heap_after_churn_bytes = await heapAfterGc(context, page);
    expect(figures.heap_after_churn_bytes).toBeLessThan(HEAP_BUDGET_BYTES);
    expect(errors.filter((e) => !/WebSocket/.test(e))).toEqual([]);
    await context.close();
  });
});
