// The dashboard's code and styles loaded on demand (each page, and the charts' uPlot): when a fetch
// fails (the network dropped while it ran) it is made again, so the page and its chart appear,
// styled, without a reload; only a load that keeps failing shows the page's error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

/** The chunks the feed page loads on demand: its own code and styles, and the chart's. */
const ON_DEMAND = /\/assets\/(Feed|UPlotChart)-[^/]+\.(js|css)$/;

describe('dashboard code loaded on demand', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await d?.stop();
  });

  it('fetches a page and its chart again when their first fetch fails, styles included', async () => {
    const agent = await d.t.createAgent();
    expect((await d.t.api.post('/api/messages', { level: 'INFO', content: 'a report to chart' }, { token: agent.api_token })).status).toBe(201);
    // Signed in on a page with no chart (the Overview draws one), so the feed page is the first to need uPlot.
    const { page, context, errors } = await d.open('/approvals');
    await d.signIn(page);
    const refused = new Map<string, number>();
    await page.route(ON_DEMAND, async (route) => {
      const path = new URL(route.request().url()).pathname;
      const times = refused.get(path) ?? 0;
      if (times >= 2) return route.continue();
      refused.set(path, times + 1);
      await route.abort('connectionreset');
    });

    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Live feed' }).click();
    await page.getByText('a report to chart').waitFor();
    await page.locator('.uplot').first().waitFor();
    expect(await page.getByRole('heading', { name: 'This page failed' }).count()).toBe(0);
    // Every on-demand file was refused (up to twice) before it was served.
    expect([...refused.keys()].map((p) => p.replace(/^(\/assets\/[A-Za-z]+)-.*\.(js|css)$/, '$1.$2')).sort()).toEqual([
      '/assets/Feed.css',
      '/assets/Feed.js',
      '/assets/UPlotChart.css',
      '/assets/UPlotChart.js',
    ]);
    // Both stylesheets are in force (a link whose load failed has a sheet whose rules cannot be read): the refused ones were fetched again.
    const inForce = (await page.evaluate(
      '[...document.styleSheets].filter((s) => { try { return s.cssRules.length > 0; } catch { return false; } }).map((s) => s.href ?? "")',
    )) as string[];
    const onDemand = inForce.filter((href) => /\/(Feed|UPlotChart)-/.test(href)).map((href) => href.replace(/^.*\/(Feed|UPlotChart)-.*$/, '$1'));
    expect(onDemand.sort()).toEqual(['Feed', 'UPlotChart']);
    expect(errors.filter((e) => !/net::/.test(e))).toEqual([]);
    await context.close();
  });

  it('shows the page’s error, with a way to reload, when its code cannot be fetched at all', async () => {
    const { page, context } = await d.open('/');
    await d.signIn(page);
    await page.route(/\/assets\/Agents-[^/]+\.js$/, (route) => route.abort('connectionreset'));
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('heading', { name: 'This page failed' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('button', { name: 'Reload the page' }).count()).toBe(1);
    await context.close();
  });
});
