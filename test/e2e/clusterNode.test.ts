// The Actors page in cluster mode says which node it is looking at: two real hub processes on one
// PostgreSQL database and one Redis serve the dashboard, and each page names its own node, whether
// it leads, and the other node.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import { ADMIN, E2E_TIMEOUT, launchBrowser, SCREENSHOTS, WEB_DIR } from '../helpers/e2e/harness.js';
import { join } from 'node:path';

describe.skipIf(!inject('pgUrl'))('dashboard on a cluster [postgres + redis]', { timeout: E2E_TIMEOUT }, () => {
  let c: TestCluster;
  let browser: Browser;
  beforeAll(async () => {
    c = await startCluster({ nodes: 2, env: { WEB_DIR } });
    browser = await launchBrowser();
  }, E2E_TIMEOUT);
  afterAll(async () => {
    await browser?.close();
    await c?.stop();
  });

  it('names the node each Actors page looks at, whether it leads, and its peer', async () => {
    const lines: string[] = [];
    for (const node of c.nodes) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: node.url });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto('/actors');
      await page.getByLabel('Username').fill(ADMIN.username);
      await page.getByLabel('Password').fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      const line = page.getByTestId('actors-node');
      // The page refreshes every 3 s; a node learns of its peer within one beat of the peer's start.
      const peer = c.nodes.find((n) => n !== node)!.id;
      await line
        .filter({ hasText: node.id })
        .filter({ hasText: `peers: ${peer}` })
        .waitFor();
      const text = (await line.textContent()) ?? '';
      expect(text).toMatch(new RegExp(`^Node ${node.id}, cluster (leader|member) · peers: ${peer}$`));
      lines.push(text);
      if (node === c.nodes[0]) {
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.screenshot({ path: join(SCREENSHOTS, `cluster-actors-${scheme}.png`), fullPage: true, animations: 'disabled' });
        }
      }
      expect(errors).toEqual([]);
      await context.close();
    }
    // One leads, the other is a member.
    expect(lines.filter((l) => l.includes('cluster leader'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('cluster member'))).toHaveLength(1);
  });
});
