// Where the client's socket comes from and where it points. In a browser, the platform's WebSocket; on
// Node, the `ws` package (it implements the same interface), because only it lets the client read a refused
// upgrade's answer (a balancer's 503, the hub's 401 text), which Node's built-in WebSocket hides. `ws` is
// loaded only on Node, so a browser bundle never runs it (its browser entry is a stub).
import { hubErrorOf, type HttpAnswer } from './answers.js';

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

/** The parts of `ws`'s socket and of Node's IncomingMessage read here (no Node import: browser-safe). */
interface WsSocket {
  on(event: 'unexpected-response', listener: (request: unknown, response: UpgradeResponse) => void): unknown;
  terminate(): void;
}
interface UpgradeResponse {
  statusCode?: number;
  headers: Record<string, string | string[] | undefined>;
  setEncoding(encoding: 'utf8'): void;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end' | 'error', listener: () => void): unknown;
}

/** A refused upgrade's body is read up to this much, for this long: enough for the hub's `{"error"}`. */
const REFUSAL_BODY_BYTES = 4096;
const REFUSAL_READ_MS = 1000;

/**
 * Calls `handler` with a refused upgrade's answer (status, Server header, the hub's error text if the
 * body has its shape), then closes the socket, which reports its close (1006) as usual. Only `ws`
 * (Node) lets a client read it; with a browser's WebSocket nothing is called.
 */
export function onRefusedUpgrade(socket: SocketLike, handler: (answer: HttpAnswer) => void): void {
  const ws = socket as unknown as Partial<WsSocket>;
  if (typeof ws.on !== 'function' || typeof ws.terminate !== 'function') return;
  (ws as WsSocket).on('unexpected-response', (_request, response) => {
    let body = '';
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const server = response.headers['server'];
      const hubError = hubErrorOf(body);
      handler({ status: response.statusCode ?? 0, ...(hubError === undefined ? {} : { hubError }), ...(typeof server === 'string' ? { server } : {}) });
      (ws as WsSocket).terminate();
    };
    const timer = setTimeout(finish, REFUSAL_READ_MS);
    response.setEncoding('utf8');
    response.on('data', (chunk) => {
      body += chunk;
      if (body.length >= REFUSAL_BODY_BYTES) finish();
    });
    response.on('end', finish);
    response.on('error', finish);
  });
}

export async function defaultWebSocket(): Promise<SocketConstructor> {
  const native = (globalThis as { WebSocket?: unknown }).WebSocket;
  const onNode = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
  if (typeof native === 'function' && !onNode) return native as SocketConstructor;
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

/** The socket address for a credential, resuming after `since` when given, asking for batched presence when told. */
export function socketUrl(base: string, token: string, since: number | undefined, presenceBatched = false): string {
  const url = new URL(`${base}/api/ws`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  if (since !== undefined) url.searchParams.set('since', String(since));
  if (presenceBatched) url.searchParams.set('presence', 'batched');
  return url.toString();
}

/** The text of a message event's data (text frames only; the hub sends no binary). */
export function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  // `ws` hands Buffers to onmessage only for binary frames; those are not the hub's.
  return undefined;
}
