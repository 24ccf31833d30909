// The official MCP SDK's client, connected to a test hub's /mcp over Streamable HTTP with a bearer
// credential: what an LLM app or a coding agent does.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** The protocol era a client speaks: the 2025 revisions (the SDK's default), or the 2026-07-28 one. */
export type Era = 'legacy' | 'modern';
export const ERAS: readonly Era[] = ['legacy', 'modern'];

export async function connectMcp(baseUrl: string, token: string, era: Era = 'legacy'): Promise<Client> {
  const client = new Client({ name: 'hub-test', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** The structured output of a successful tool call; fails the test with the tool's message otherwise. */
export async function callTool<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}
