// `hub-agent mcp`: the hub's MCP server for clients that only launch local MCP servers. It speaks
// MCP on stdin/stdout (the SDK's stdio transport) and passes every message, unchanged, to the hub's
// /mcp over Streamable HTTP (the SDK's client transport) with the token from the environment, and
// every answer back. Nothing but MCP goes to stdout; what goes wrong is said on stderr, and a request
// the hub could not be asked is answered with a JSON-RPC error so the client is never left waiting.
import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

export interface BridgeOptions {
  url: string;
  token: string;
  stdin: Readable;
  stdout: Writable;
  /** One line of progress or trouble (stderr). */
  progress(line: string): void;
}

/** The JSON-RPC error an unanswered request gets when the hub could not take it. */
const BRIDGE_ERROR = -32000;

/** The hub's /mcp for a base URL given as http(s) or ws(s), with or without a path. */
export function mcpUrl(base: string): URL {
  const url = new URL(base);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  return new URL('/mcp', url);
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'method' in m && 'id' in m;

/** Runs until stdin ends (the client closed it); resolves with the exit code. */
export async function runMcpBridge(options: BridgeOptions): Promise<number> {
  const local = new StdioServerTransport(options.stdin, options.stdout);
  const remote = new StreamableHTTPClientTransport(mcpUrl(options.url), { requestInit: { headers: { Authorization: `Bearer ${options.token}` } } });
  /** Ids of initialize requests in flight: their answer names the protocol version the hub chose. */
  const initializing = new Set<string | number>();

  remote.onmessage = (message) => {
    if ('id' in message && initializing.delete(message.id!) && 'result' in message) {
      const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
      if (typeof version === 'string') remote.setProtocolVersion(version);
    }
    local.send(message).catch((err: unknown) => options.progress(`could not write to the MCP client: ${(err as Error).message}`));
  };
  remote.onerror = (err) => options.progress(`hub: ${err.message}`);

  local.onmessage = (message) => {
    if (isRequest(message) && message.method === 'initialize') initializing.add(message.id);
    remote.send(message).catch((err: unknown) => {
      const text = (err as Error).message;
      options.progress(`the hub did not take ${isRequest(message) ? message.method : 'a message'}: ${text}`);
      if (isRequest(message)) {
        initializing.delete(message.id);
        void local.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: BRIDGE_ERROR, message: `the hub at ${options.url} refused or could not be reached: ${text}` },
        });
      }
    });
  };
  local.onerror = (err) => options.progress(`stdin: ${err.message}`);

  const closed = new Promise<void>((resolve) => {
    local.onclose = () => resolve();
    options.stdin.once('end', () => resolve());
  });
  await remote.start();
  await local.start();
  options.progress(`serving MCP on stdio for ${mcpUrl(options.url).href}`);
  await closed;
  await Promise.allSettled([local.close(), remote.close()]);
  return 0;
}
