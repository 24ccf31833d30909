// A read that meets a balancer's 503 (a node dying behind HAProxy) is read again by the page: the
// agent list shows, and no error banner is left, although the page's own socket never dropped. The
// chart series go through the same REST helper: read again the same way, and a 401 ends the session.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

/** HAProxy's built-in page when it has no server for a request. */
const HAPROXY_PAGE = '<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n';

describe('dashboard reads through a balancer', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await d?.stop();
  });

  it('reads the agent list again after two 503 pages and shows it with no banner', async () => {
    const agent = await d.t.createAgent();
    const { page, context } = await d.open('/agents');
    let refused = 0;
    let served = 0;
    await page.route(
      (url) => url.pathname === '/api/users/agents',
      async (route) => {
        if (route.request().method() === 'GET' && refused < 2) {
          refused += 1;
          await route.fulfill({ status: 503, contentType: 'text/html', headers: { 'cache-control': 'no-cache' }, body: HAPROXY_PAGE });
          return;
        }
        served += 1;
        await route.continue();
      },
    );
    await d.signIn(page);
    await page.getByText(agent.username).first().waitFor();
    expect(refused).toBe(2);
    expect(served).toBeGreaterThanOrEqual(1);
    expect(await page.locator('.error-note').count()).toBe(0);
    expect(await page.getByText(/503|not JSON/).count()).toBe(0);
    await context.close();
  });

  it("reads the Overview's oldest-unanswered series again after two 503 pages and shows it with no banner", async () => {
    const { page, context } = await d.open('/');
    let refused = 0;
    await page.route(
      (url) => url.pathname === '/api/stats/unanswered',
      async (route) => {
        if (refused < 2) {
          refused += 1;
          await route.fulfill({ status: 503, contentType: 'text/html', headers: { 'cache-control': 'no-cache' }, body: HAPROXY_PAGE });
          return;
        }
        await route.continue();
      },
    );
    await d.signIn(page);
    await page.getByText('Nothing is waiting').waitFor();
    expect(refused).toBe(2);
    expect(await page.locator('.error-note').count()).toBe(0);
    await context.close();
  });

  it('ends the session with a message when a chart series answers 401', async () => {
    const { page, context } = await d.open('/');
    await page.route(
      (url) => url.pathname === '/api/stats/unanswered',
      (route) => route.fulfill({ status: 401, contentType: 'application/json', body: JSON.stringify({ error: 'invalid token' }) }),
    );
    // Signed in by hand: the session may end before its socket opens, which `signIn` waits for.
    await page.getByLabel('Username').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Your session is no longer valid. Please sign in again.').waitFor();
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    await context.close();
  });
});
