// The dashboard's front door: signing in and out, a session that survives a reload, registration
// when the hub allows it, readable errors, the connection indicator, and what a MEMBER may not see
// (the pages hide it, and the API refuses it anyway).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_TIMEOUT, startDashboard, storedSession, type Dashboard, type PageStorage } from '../helpers/e2e/harness.js';

describe('dashboard session', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard({ ALLOW_SELF_REGISTRATION: 'true' });
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  it('serves the app at / and at deep links, and keeps the API under /api', async () => {
    const deep = await fetch(`${d.t.url}/chat/2`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    const api = await fetch(`${d.t.url}/api/nope`);
    expect(api.status).toBe(404);
    expect(await api.json()).toHaveProperty('error');
  });

  it('signs in, survives a reload, and signs out', async () => {
    const { page, context, errors } = await d.open('/');
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    await d.shoot(page, 'login');

    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid credentials' }).waitFor();

    await d.signIn(page);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Agents' }).waitFor();
    expect(await page.getByTestId('connection').textContent()).toContain('Live');

    await page.reload();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).count()).toBe(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    expect(errors.filter((e) => !e.includes('401'))).toEqual([]);
    await context.close();
  });

  it('ends an expired session with a message', async () => {
    const { page, context } = await d.open('/');
    await d.signIn(page);
    // The stored session claims an expiry in the past: a reload must not trust it.
    await page.evaluate(() => {
      const storage = (globalThis as unknown as { localStorage: PageStorage }).localStorage;
      const saved = JSON.parse(storage.getItem('hub.session')!) as { expiresAt: number };
      storage.setItem('hub.session', JSON.stringify({ ...saved, expiresAt: Date.now() - 1000 }));
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    await context.close();
  });

  it('registers a new member when the hub allows it', async () => {
    const { page, context, errors } = await d.open('/');
    await page.getByRole('button', { name: 'Create an account' }).click();
    await page.getByLabel('Username').fill(`newbie-${process.pid}`);
    await page.getByLabel('Password').fill('long-enough-password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();
    expect(await page.locator('.who').textContent()).toContain('member');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a MEMBER no admin pages, and the API refuses them anyway', async () => {
    const member = await d.t.createMember();
    const { page, context } = await d.open('/');
    await d.signIn(page, { username: member.username, password: 'member-password' });
    const nav = page.getByRole('navigation', { name: 'Pages' });
    await nav.getByRole('link', { name: 'Chat' }).waitFor();
    for (const name of ['Monitor', 'Agents', 'Connector', 'Actors']) expect(await nav.getByRole('link', { name }).count()).toBe(0);

    for (const path of ['/agents', '/connector', '/actors', '/monitor']) {
      await page.goto(path);
      await page.getByText('This page is for admins.').waitFor();
    }
    await d.shoot(page, 'member-refused');

    const { token } = await storedSession(page);
    for (const path of ['/api/users', '/api/admin/actors', '/api/integrations/chatplatform', `/api/chat/butler-agent/1`]) {
      const res = await fetch(`${d.t.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status, path).toBe(403);
    }
    await context.close();
  });

  it('works from the keyboard: sign in, skip to the content, reach the pages and the theme', async () => {
    const { page, context } = await d.open('/');
    // The username field has focus on arrival.
    await page.locator('input[name="username"]:focus').waitFor();
    await page.keyboard.type('admin');
    await page.keyboard.press('Tab');
    await page.keyboard.type('admin-password');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="connection"][data-state="open"]').waitFor();

    const focused = () =>
      page.evaluate(() => {
        const el = (globalThis as unknown as { document: { activeElement: { textContent: string | null; id: string; tagName: string } | null } }).document
          .activeElement;
        return { text: el?.textContent?.trim() ?? '', id: el?.id ?? '', tag: el?.tagName ?? '' };
      });
    /** Tabs forward until `match` has focus; fails when 30 presses do not reach it. */
    async function tabTo(match: (f: { text: string; id: string; tag: string }) => boolean, what: string) {
      for (let i = 0; i < 30; i++) {
        await page.keyboard.press('Tab');
        if (match(await focused())) return;
      }
      throw new Error(`Tab never reached ${what}`);
    }

    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect((await focused()).id).toBe('main');

    await page.locator('body').focus();
    await tabTo((f) => f.id === 'theme', 'the theme switch');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('light');
    await tabTo((f) => f.tag === 'A' && f.text === 'Live feed', 'the Live feed link');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/feed');
    await tabTo((f) => f.tag === 'A' && f.text === 'Chat', 'the Chat link');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/chat');
    await context.close();
  });

  it('is usable at a phone width: the menu opens and leads to a page', async () => {
    const { page, context } = await d.open('/', { viewport: { width: 390, height: 844 } });
    await d.signIn(page);
    const nav = page.getByRole('navigation', { name: 'Pages' });
    expect(await nav.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Chat' }).waitFor();
    await page.keyboard.press('Escape');
    expect(await nav.isVisible()).toBe(false);
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav.getByRole('link', { name: 'Chat' }).click();
    await page.waitForURL('**/chat');
    expect(await nav.isVisible()).toBe(false);
    await d.shoot(page, 'phone-chat');
    // The theme and signing out sit at the foot of the menu, where the header has no room for them.
    await page.getByRole('button', { name: 'Menu' }).click();
    await d.shoot(page, 'phone-menu');
    await nav.getByLabel('Theme').selectOption('dark');
    expect(await page.locator('html').getAttribute('data-theme')).toBe('dark');
    await nav.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Agent Hub' }).waitFor();
    await context.close();
  });
});
