// End-to-end tests of the dashboard: the built app (dist/web) served by a real hub, whose Butler
// talks to a fake language model and whose connector talks to a fake chat platform, driven in
// Debian's headless Chromium through playwright-core. Screenshots go to test-results/screenshots.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { HubClient } from '../../../src/client/index.js';
import { runAgent, type RunningAgent } from '../../../src/examples/agent.js';
import { createEchoAgent } from '../../../src/examples/echo.js';
import { startFakeModel, type FakeModel } from '../fakeModel.js';
import { startFakePlatform, type FakePlatform } from '../fakePlatform.js';
import { startTestHub, type TestHub } from '../hub.js';

const ROOT = resolve(import.meta.dirname, '../../..');
export const WEB_DIR = join(ROOT, 'dist/web');
export const SCREENSHOTS = join(ROOT, 'test-results/screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Generous: two cores run the browser, the hub and the rest of the suite at once. */
export const E2E_TIMEOUT = 90_000;

export const ADMIN = { username: 'admin', password: 'admin-password' };

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not at ${CHROMIUM}: install it with "apt-get install chromium" (or set CHROMIUM_PATH)`);
  // The flags keep Chromium off the network it would call home to (refused on a closed machine).
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** The page's localStorage, as seen from code that runs in the page (this file's types are Node's). */
export interface PageStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The signed-in session the page keeps (its token and expiry). */
export async function storedSession(page: Page): Promise<{ token: string; expiresAt: number }> {
  return page.evaluate(
    () =>
      JSON.parse((globalThis as unknown as { localStorage: PageStorage }).localStorage.getItem('hub.session') ?? 'null') as {
        token: string;
        expiresAt: number;
      },
  );
}

export interface OpenOptions {
  /** Width × height; the default is a laptop. */
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  /** Reach the hub through this address instead (a relay in front of it). */
  base?: string;
}

export interface Dashboard {
  t: TestHub;
  model: FakeModel;
  platform: FakePlatform;
  browser: Browser;
  /** A fresh browser context (its own storage) on the dashboard. Page errors are collected in `errors`. */
  open(path?: string, options?: OpenOptions): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  /** Signs in through the login form and waits for the live connection. */
  signIn(page: Page, user?: { username: string; password: string }): Promise<void>;
  /** Saves the page in light and in dark, as `<name>-light.png` and `<name>-dark.png`. */
  shoot(page: Page, name: string): Promise<void>;
  /** Registers an agent and runs the example echo agent for it. */
  startEchoAgent(username: string): Promise<{ id: number; username: string; api_token: string; run: RunningAgent }>;
  stop(): Promise<void>;
}

export async function startDashboard(env: Record<string, string> = {}): Promise<Dashboard> {
  if (!existsSync(join(WEB_DIR, 'index.html'))) throw new Error(`the dashboard is not built in ${WEB_DIR}: run "npm run build"`);
  const model = await startFakeModel();
  const platform = await startFakePlatform();
  const t = await startTestHub('sqlite', {
    WEB_DIR,
    BUTLER_BASE_URL: `${model.baseUrl}`,
    BUTLER_API_TOKEN: 'sk-e2e-test',
    BUTLER_MODEL: 'fake-model',
    CHATPLATFORM_BASE_URL: platform.url,
    ...env,
  });
  const browser = await launchBrowser();
  const agents: RunningAgent[] = [];
  mkdirSync(SCREENSHOTS, { recursive: true });

  return {
    t,
    model,
    platform,
    browser,
    async open(path = '/', options = {}) {
      const context = await browser.newContext({
        viewport: options.viewport ?? { width: 1280, height: 800 },
        colorScheme: options.colorScheme ?? 'light',
        baseURL: options.base ?? t.url,
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
      page.on('console', (msg) => {
        if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
      });
      await page.goto(path);
      return { page, context, errors };
    },
    async signIn(page, user = ADMIN) {
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    },
    async shoot(page, name) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${scheme}.png`), fullPage: true, animations: 'disabled' });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    },
    async startEchoAgent(username) {
      const registered = await t.createAgent(username);
      const run = await runAgent(new HubClient({ url: t.url, token: registered.api_token }), createEchoAgent());
      agents.push(run);
      return { ...registered, run };
    },
    async stop() {
      await Promise.all(agents.map((a) => a.stop().catch(() => undefined)));
      await browser.close().catch(() => undefined);
      await t.stop();
      await platform.close();
      await model.close();
    },
  };
}
