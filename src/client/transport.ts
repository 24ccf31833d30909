// Where the client's socket comes from and where it points. Browsers and Node 22+ have a standard
// WebSocket; where it is switched off (`--no-experimental-websocket`) the `ws` package stands in (it
// implements the same interface). `ws` is loaded only when needed, so a browser bundle never runs it.

/** The part of the standard WebSocket interface the client uses. */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type SocketConstructor = new (url: string) => SocketLike;

export const OPEN = 1;

export async function defaultWebSocket(): Promise<SocketConstructor> {
  const native = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (typeof native === 'function') return native as SocketConstructor;
  const ws = await import('ws');
  return ws.WebSocket as unknown as SocketConstructor;
}

/** `http://host:8080` (or `ws://…`, with or without `/api/ws`) → the hub's base URL over HTTP. */
export function httpBase(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'ws:') parsed.protocol = 'http:';
  else if (parsed.protocol === 'wss:') parsed.protocol = 'https:';
  else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Error(`hub URL must start with http://, https://, ws:// or wss:// (got ${parsed.protocol})`);
  parsed.pathname = parsed.pathname.replace(/\/api\/ws\/?$/, '').replace(/\/+$/, '');
  parsed.search = '';
  parsed.hash = '';
  return parsed.toString().replace(/\/+$/, '');
}

/** The socket address for a credential, resuming after `since` when given. */
export function socketUrl(base: string, token: string, since: number | undefined): string {
  const url = new URL(`${base}/api/ws`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  if (since !== undefined) url.searchParams.set('since', String(since));
  return url.toString();
}

/** The text of a message event's data (text frames only; the hub sends no binary). */
export function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  // `ws` hands Buffers to onmessage only for binary frames; those are not the hub's.
  return undefined;
}
