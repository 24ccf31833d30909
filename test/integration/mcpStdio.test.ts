// `hub-agent mcp`, the stdio bridge, launched by the MCP SDK's own StdioClientTransport as a desktop
// client would launch it: tools listed, a message to a real agent on the WebSocket answered through
// the bridge with wait_seconds, history read, and a bad token reported as an error, not a hang.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { ERAS, type Era } from '../helpers/mcpClient.js';
import { wsClientPool } from '../helpers/wsClient.js';

describe('hub-agent mcp (stdio bridge)', () => {
  let t: TestHub;
  let member: { id: number; username: string; token: string };
  const sockets = wsClientPool(() => t.url);
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await startTestHub('sqlite');
    member = await t.createMember();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
    await sockets.closeAll();
  });
  afterAll(() => t?.stop());

  async function launch(token: string, era: Era = 'legacy'): Promise<{ client: Client; stderr: () => string }> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp'],
      env: { PATH: process.env['PATH'] ?? '', HUB_URL: t.url, HUB_TOKEN: token },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'desktop-app', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
    clients.push(client);
    await client.connect(transport);
    return { client, stderr: () => stderr };
  }

  it.each(ERAS)('serves the tools over stdio with a personal access token, and a reply from an agent comes back through it (%s era)', async (era) => {
    const minted = await t.api.post('/api/auth/access-tokens', { name: 'desktop app' }, { token: member.token });
    const agent = await t.createAgent();
    const agentWs = await sockets.connect(agent.api_token);
    const { client, stderr } = await launch(minted.body.token, era);
    expect(client.getNegotiatedProtocolVersion()).toBe(era === 'modern' ? '2026-07-28' : '2025-11-25');

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('send_message');

    const call = client.callTool({ name: 'send_message', arguments: { to: agent.username, text: 'hello over stdio', wait_seconds: 30 } });
    const question = await agentWs.nextWhere((f) => f.type === 'CHAT' && f.payload === 'hello over stdio', 'the message');
    expect(question.sender_id).toBe(member.id);
    agentWs.send({ type: 'CHAT', target_id: member.id, payload: 'hello back', local_id: 'back' });
    const result = await call;
    expect(result.structuredContent).toMatchObject({ status: 'replied', reply: { text: 'hello back' } });

    const history = await client.callTool({ name: 'read_history', arguments: { peer: agent.username } });
    expect((history.structuredContent as { messages: Array<{ text: string }> }).messages.map((m) => m.text)).toEqual(['hello over stdio', 'hello back']);
    expect(stderr()).toContain('serving MCP on stdio');
    expect(stderr()).not.toContain(minted.body.token);
  });

  it("answers with an error naming the hub's refusal when the token is bad", async () => {
    await expect(launch('hubpat_' + 'x'.repeat(43))).rejects.toThrow(/refused or could not be reached|401|Unauthorized/i);
  });
});
