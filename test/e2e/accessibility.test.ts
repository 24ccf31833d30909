// Every dashboard page passes axe-core's accessibility rules (WCAG A and AA: names, labels, roles,
// colour contrast, landmarks) in light and in dark, with real content on it. axe runs inside the page
// through the DevTools protocol, which the dashboard's Content-Security-Policy does not stop.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const PAGES = ['/', '/feed', '/chat/2', '/approvals', '/tokens', '/monitor', '/agents', '/connector', '/actors', '/actors/router'];

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe's violations on the page as it is, one readable line each. */
async function audit(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations.map((v) => `${v.impact ?? 'unknown'} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('dashboard accessibility', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
    const agent = await d.startEchoAgent('a11y-echo');
    await d.t.api.post('/api/messages', { level: 'WARNING', content: 'disk at 91 %' }, { token: agent.api_token });
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no axe violations on any page in ${scheme}`, async () => {
      const { page, context } = await d.open('/', { colorScheme: scheme });
      await page.getByLabel('Username').waitFor();
      const found: Record<string, string[]> = { '/login': await audit(page) };
      await d.signIn(page);
      for (const path of PAGES) {
        await page.goto(path);
        await page.locator('h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        found[path] = await audit(page);
      }
      expect(Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0))).toEqual({});
      await context.close();
    });
  }
});
