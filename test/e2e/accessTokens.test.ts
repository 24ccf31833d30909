// The Access tokens page end to end: a member mints a token (shown once, with the line that adds the
// hub to a coding agent), an MCP client connects with it through the SDK, and revoking it on the page
// stops that client at once; the page then lists the token no more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectMcp } from '../helpers/mcpClient.js';
import { E2E_TIMEOUT, startDashboard, type Dashboard } from '../helpers/e2e/harness.js';

describe('dashboard access tokens', { timeout: E2E_TIMEOUT }, () => {
  let d: Dashboard;
  beforeAll(async () => {
    d = await startDashboard();
  }, E2E_TIMEOUT);
  afterAll(() => d?.stop());

  it('mints a token shown once that an MCP client can use, and revoking it stops the client', async () => {
    const user = await d.t.createMember();
    const { page, errors } = await d.open('/tokens');
    await d.signIn(page, { username: user.username, password: 'member-password' });
    await page.getByText('You have no access tokens.').waitFor();

    await page.getByRole('textbox', { name: 'Name' }).fill('laptop: coding agent');
    await page.getByRole('button', { name: 'Create token' }).click();
    const value = page.getByTestId('pat-value');
    await value.waitFor();
    const token = (await value.textContent())!.trim();
    expect(token).toMatch(/^hubpat_[\w-]{43}$/);
    expect(await page.getByTestId('pat-reveal').textContent()).toContain(`claude mcp add --transport http hub ${d.t.url}/mcp`);
    const row = page.getByTestId('pat-row').filter({ hasText: 'laptop: coding agent' });
    await row.waitFor();
    expect(await row.textContent()).toContain(`${token.slice(0, 4)}...${token.slice(-4)}`);
    expect(await row.textContent()).not.toContain(token);

    const client = await connectMcp(d.t.url, token);
    try {
      expect((await callTool<{ agents: unknown[] }>(client, 'list_agents')).agents.length).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      await row.getByRole('button', { name: 'Revoke' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
      await page.getByText('You have no access tokens.').waitFor();
      await expect(client.callTool({ name: 'list_agents', arguments: {} })).rejects.toThrow();
    } finally {
      await client.close().catch(() => undefined);
    }
    expect(errors).toEqual([]);
  });
});
