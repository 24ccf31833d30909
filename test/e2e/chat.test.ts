// The Chat page against a real hub: a member's message goes pending → confirmed (or failed with the
// hub's reason, then retried), an echo agent's streamed reply grows and ends as one message, Butler's
// reply from the fake model renders piece by piece and as markdown, threads are created, renamed,
// pinned and archived, and a reply landing in another thread marks it unread.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply } from '../helpers/fakeModel.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';
import { tapSocket } from '../helpers/e2e/socketTap.js';

const BUTLER_ID = 2;

describe('dashboard chat', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  /** A new member signed in on `path`, with the page's socket tapped. */
  async function member(path: string, options: Parameters<Dashboard['open']>[1] = {}) {
    const user = await d.t.createMember();
    const opened = await d.open(path, options);
    const tap = await tapSocket(opened.page);
    await d.signIn(opened.page, { username: user.username, password: 'member-password' });
    return { ...opened, user, tap };
  }

  const messages = (page: Page) => page.getByTestId('messages').getByTestId('message');
  const mine = (page: Page) => page.locator('[data-testid="message"][data-mine]');
  const theirs = (page: Page) => page.locator('[data-testid="message"]:not([data-mine])');
  const composer = (page: Page) => page.getByRole('textbox', { name: /^Message to/ });

  it('sends to an echo agent: pending, then confirmed; the streamed echo grows, then ends as one message', async () => {
    const agent = await d.startEchoAgent(`echo-${process.pid}`);
    const { page, context, errors, user, tap } = await member(`/chat/${agent.id}`);
    // No thread yet: the first message makes the default one, titled as the older hub titles it.
    await page
      .getByTestId('thread-title')
      .filter({ hasText: `${agent.username} chat` })
      .waitFor();
    await page.getByText('No messages yet').waitFor();

    // Held on its way to the hub, the message shows at once as pending.
    tap.holdOutgoing((f) => f.type === 'CHAT');
    await composer(page).fill('hello echo world');
    await composer(page).press('Enter');
    await mine(page).filter({ hasText: 'hello echo world' }).and(page.locator('[data-status="pending"]')).waitFor();
    expect(await mine(page).getByText('Sending…').count()).toBe(1);
    expect(await composer(page).inputValue()).toBe('');

    // Stored, the first message made the default thread, which the page now shows.
    tap.releaseOutgoing();
    await page.waitForURL(new RegExp(`/chat/${agent.id}/\\d+$`));
    await mine(page).and(page.locator('[data-status="confirmed"]')).getByText('Sent').waitFor();
    await theirs(page).and(page.locator('[data-status="confirmed"]')).filter({ hasText: 'hello echo world' }).waitFor();

    // The echo's end is held: what streamed shows before the final text replaces it.
    tap.holdIncoming((f) => (f.type === 'CHAT' || f.type === 'CHAT_STREAM_END') && f.sender_id === agent.id);
    await composer(page).fill('stream me back');
    await composer(page).press('Enter');
    const streaming = theirs(page).and(page.locator('[data-status="streaming"]'));
    await streaming.filter({ hasText: 'stream me back' }).waitFor();
    // Three chunks for each of the two messages.
    expect(tap.received.filter((f) => f.type === 'CHAT_STREAM' && f.sender_id === agent.id).length).toBe(6);
    tap.releaseIncoming();
    await theirs(page).and(page.locator('[data-status="confirmed"]')).filter({ hasText: 'stream me back' }).waitFor();
    expect(await theirs(page).count()).toBe(2);
    expect(await messages(page).count()).toBe(4);
    await d.shoot(page, 'chat-agent');

    // Refused by the hub: the reason shows, and Retry sends it again.
    tap.holdOutgoing((f) => f.type === 'CHAT');
    await composer(page).fill('refuse me once');
    await composer(page).press('Enter');
    const held = await tap.nextHeldOutgoing();
    tap.dropOutgoing();
    tap.toPage({ type: 'ERROR', payload: { code: 'forbidden', message: 'refused for this test' }, local_id: held.local_id });
    const failed = mine(page).and(page.locator('[data-status="failed"]'));
    await failed.getByText('Not sent: refused for this test').waitFor();
    await failed.getByRole('button', { name: 'Retry' }).click();
    await mine(page).filter({ hasText: 'refuse me once' }).and(page.locator('[data-status="confirmed"]')).waitFor();
    await theirs(page).filter({ hasText: 'refuse me once' }).and(page.locator('[data-status="confirmed"]')).waitFor();

    // Stored once, in the thread the page showed.
    const threads = (await d.t.api.get(`/api/chat/threads?peer_id=${agent.id}`, { token: user.token })).body as Array<{ id: number }>;
    const stored = (await d.t.api.get(`/api/chat/threads/${threads[0]!.id}/messages`, { token: user.token })).body as Array<{
      payload: string;
      sender_id: number;
    }>;
    expect(stored.filter((m) => m.sender_id === user.id).map((m) => m.payload)).toEqual(['hello echo world', 'stream me back', 'refuse me once']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("renders Butler's streamed reply piece by piece, then as markdown with a code block", async () => {
    const answer = 'Streaming starts with this sentence, then some code:\n\n```js\nconsole.log("streamed");\n```\n\nAnd the **final words** come last.';
    d.model.enqueue(textReply(answer, 5, 150));
    const { page, context, errors } = await member(`/chat/${BUTLER_ID}`);
    await page
      .getByTestId('thread-title')
      .filter({ hasText: /^Butler$/ })
      .waitFor();
    await composer(page).fill('show me some code');
    await composer(page).press('Enter');

    const butler = theirs(page);
    await butler.and(page.locator('[data-status="streaming"]')).filter({ hasText: 'Streaming starts' }).waitFor();
    // The first part is on screen while the last one is still on its way.
    expect(await butler.first().textContent()).not.toContain('final words');
    await butler.and(page.locator('[data-status="confirmed"]')).filter({ hasText: 'final words' }).waitFor();
    expect(await butler.count()).toBe(1);
    expect(await butler.locator('pre > code').textContent()).toContain('console.log("streamed");');
    expect(await butler.locator('strong').textContent()).toBe('final words');

    // Markdown stays text where it would be markup; links open apart from the page.
    d.model.enqueue(textReply('<img src=x onerror="alert(1)"> see [the docs](https://example.com/docs)'));
    await composer(page).fill('and a link?');
    await composer(page).press('Enter');
    const link = butler.getByRole('link', { name: 'the docs' });
    await link.waitFor();
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    expect(await butler.locator('img').count()).toBe(0);
    expect(await butler.last().textContent()).toContain('<img src=x');
    await d.shoot(page, 'chat-butler');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates, renames, pins and archives threads, and marks a reply in another thread unread', async () => {
    const { page, context, errors, user } = await member(`/chat/${BUTLER_ID}`);
    // A first message (a record Butler leaves be) makes the default thread; its echo opens it.
    const first = await d.t.api.post(
      '/api/dev/mock/chat',
      { sender_username: user.username, receiver_username: 'Butler', content: 'hello Butler' },
      { token: d.t.adminToken },
    );
    expect(first.status).toBe(201);
    await page.waitForURL(/\/chat\/2\/\d+$/);
    await page
      .getByTestId('thread-title')
      .filter({ hasText: /^Butler$/ })
      .waitFor();
    const threadRows = page.getByRole('list', { name: 'Threads with Butler' }).getByTestId('thread');

    await page.getByRole('button', { name: 'New thread' }).click();
    await page.getByLabel('Title of the new thread').fill('Release plan');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByTestId('thread-title').filter({ hasText: 'Release plan' }).waitFor();
    await page.waitForURL(/\/chat\/2\/\d+$/);
    const threadId = Number(page.url().split('/').at(-1));
    expect(await threadRows.count()).toBe(2);

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Thread title').fill('Release plan v2');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('thread-title').filter({ hasText: 'Release plan v2' }).waitFor();
    await threadRows.filter({ hasText: 'Release plan v2' }).waitFor();

    await page.getByRole('button', { name: 'Pin', exact: true }).click();
    await page.getByRole('button', { name: 'Unpin' }).waitFor();
    await threadRows.first().getByLabel('Pinned').waitFor();
    expect(await threadRows.first().textContent()).toContain('Release plan v2');

    // A slow answer in this thread arrives while the default thread is open: it is marked unread there.
    d.model.enqueue(textReply('The plan is ready.', 2, 1500));
    await composer(page).fill('draft the release plan');
    await composer(page).press('Enter');
    await mine(page).and(page.locator('[data-status="confirmed"]')).waitFor();
    await threadRows.filter({ has: page.locator('.chat-row-title', { hasText: /^Butler$/ }) }).click();
    await page
      .getByTestId('thread-title')
      .filter({ hasText: /^Butler$/ })
      .waitFor();
    await threadRows.filter({ hasText: 'Release plan v2' }).getByTestId('unread').filter({ hasText: '1' }).waitFor();
    await page.getByTestId('peer').filter({ hasText: 'Butler' }).getByTestId('unread').waitFor();
    await threadRows.filter({ hasText: 'Release plan v2' }).click();
    await theirs(page).filter({ hasText: 'The plan is ready.' }).waitFor();
    expect(await page.getByTestId('unread').count()).toBe(0);

    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('button', { name: 'Unarchive' }).waitFor();
    await threadRows.filter({ has: page.locator('.chat-row-title', { hasText: /^Butler$/ }) }).click();
    await page
      .getByTestId('thread-title')
      .filter({ hasText: /^Butler$/ })
      .waitFor();
    expect(await threadRows.count()).toBe(1);
    await page.getByLabel('Show archived (1)').check();
    await threadRows.filter({ hasText: 'Release plan v2' }).getByText('Archived').waitFor();

    const stored = (await d.t.api.get('/api/chat/threads?include_archived=true', { token: user.token })).body as Array<{
      id: number;
      title: string;
      is_pinned: boolean;
      archived_at: string | null;
    }>;
    expect(stored.find((t) => t.id === threadId)).toMatchObject({ title: 'Release plan v2', is_pinned: true, archived_at: expect.any(String) });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages back through a long history when scrolled to the top, keeping the place', async () => {
    const quiet = await d.t.createAgent();
    const user = await d.t.createMember();
    const thread = (await d.t.api.post('/api/chat/threads', { peer_id: quiet.id }, { token: user.token })).body as { id: number };
    for (let n = 1; n <= 70; n++) {
      const res = await d.t.api.post(
        '/api/dev/mock/chat',
        { sender_username: quiet.username, receiver_username: user.username, content: `history line ${n}.`, conversation_id: thread.id },
        { token: d.t.adminToken },
      );
      expect(res.status).toBe(201);
    }
    const { page, context, errors } = await d.open(`/chat/${quiet.id}/${thread.id}`);
    await d.signIn(page, { username: user.username, password: 'member-password' });
    await theirs(page).filter({ hasText: 'history line 70.' }).waitFor();
    // The newest page (50) is shown, the view at its end.
    expect(await theirs(page).count()).toBe(50);
    await page.getByRole('button', { name: 'Load older messages' }).waitFor();

    await page.getByTestId('messages').hover();
    await page.mouse.wheel(0, -100_000);
    await theirs(page).filter({ hasText: 'history line 1.' }).waitFor();
    expect(await theirs(page).count()).toBe(70);
    expect(await page.getByRole('button', { name: 'Load older messages' }).count()).toBe(0);
    // The page went on top of what was there: the old top (line 21) stays in view, line 1 is above it.
    const view = (await page.getByTestId('messages').boundingBox())!;
    const oldTop = (await theirs(page).filter({ hasText: 'history line 21.' }).boundingBox())!;
    const first = (await theirs(page).filter({ hasText: 'history line 1.' }).boundingBox())!;
    expect(oldTop.y).toBeGreaterThanOrEqual(view.y - oldTop.height);
    expect(oldTop.y).toBeLessThan(view.y + view.height);
    expect(first.y).toBeLessThan(view.y);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says so when the threads cannot be read, and recovers with "Try again"', async () => {
    const { page, context } = await d.open(`/chat/${BUTLER_ID}`);
    await page.route(/\/api\/chat\/threads\?/, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Internal server error"}' }),
    );
    const user = await d.t.createMember();
    await d.signIn(page, { username: user.username, password: 'member-password' });
    const alert = page.getByRole('alert').filter({ hasText: 'The hub failed to answer (500): Internal server error' });
    await alert.first().waitFor();
    await page.unroute(/\/api\/chat\/threads\?/);
    await alert.first().getByRole('button', { name: 'Try again' }).click();
    await page
      .getByTestId('thread-title')
      .filter({ hasText: /^Butler$/ })
      .waitFor();
    expect(await alert.count()).toBe(0);
    await context.close();
  });

  it('works at phone width: the lists and the conversation take turns', async () => {
    d.model.enqueue(textReply('Hello from a small screen.'));
    const { page, context, errors } = await member(`/chat/${BUTLER_ID}`, { viewport: { width: 390, height: 844 } });
    await page.getByTestId('thread-title').waitFor();
    expect(await page.getByRole('list', { name: 'Peers' }).isVisible()).toBe(false);
    await composer(page).fill('hi');
    await composer(page).press('Enter');
    await theirs(page).filter({ hasText: 'Hello from a small screen.' }).waitFor();
    await d.shoot(page, 'chat-phone');
    await page.getByRole('button', { name: 'Peers and threads' }).click();
    await page.getByRole('list', { name: 'Peers' }).waitFor();
    expect(await page.getByTestId('messages').isVisible()).toBe(false);
    await page.getByTestId('thread').first().click();
    await page.getByTestId('messages').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
