// Shared by the load generators: the clock, the local_id and payload codecs, and socket opening.
import WebSocket from 'ws';
import { now } from '../lib/clock.js';

export { now };

/** `<run tag>.<agent index>.<sequence>`: unique per run, so the hub's local_id dedupe never folds two runs. */
export const localId = (tag: string, agent: number, seq: number) => `${tag}.${agent}.${seq}`;

export function parseLocalId(id: string): { tag: string; agent: number; seq: number } | undefined {
  const a = id.indexOf('.');
  const b = id.indexOf('.', a + 1);
  if (a < 0 || b < 0) return undefined;
  return { tag: id.slice(0, a), agent: Number(id.slice(a + 1, b)), seq: Number(id.slice(b + 1)) };
}

/** Chat text: the send time, then filler up to `bytes` so frames have a realistic size. */
export function chatPayload(sentAt: number, filler: string): string {
  return `${sentAt.toFixed(3)}|${filler}`;
}

export const sentAtOf = (payload: string) => Number(payload.slice(0, payload.indexOf('|')));

export function filler(bytes: number): string {
  const words = 'the quick brown fox jumps over the lazy dog ';
  return words.repeat(Math.ceil(bytes / words.length)).slice(0, Math.max(0, bytes - 20));
}

export interface OpenOptions {
  localAddress?: string;
  timeoutMs?: number;
}

/** Opens one socket; rejects with the HTTP status when the upgrade is refused. */
export function openSocket(url: string, options: OpenOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, localAddress: options.localAddress, handshakeTimeout: options.timeoutMs ?? 15_000 });
    const fail = (err: Error) => {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      reject(err);
    };
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      // Errors after opening surface as 'close'; this keeps one from being thrown as unhandled.
      ws.on('error', () => undefined);
      resolve(ws);
    });
    ws.once('error', fail);
    ws.once('unexpected-response', (_req, res) => fail(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
}

export interface OpenAllResult {
  sockets: Array<WebSocket | undefined>;
  errors: string[];
  startedAt: number;
  endedAt: number;
}

/** Opens every url with at most `concurrency` handshakes in flight; failures are collected, not thrown. */
export async function openAll(urls: string[], concurrency: number, open: (url: string, index: number) => Promise<WebSocket>): Promise<OpenAllResult> {
  const sockets: Array<WebSocket | undefined> = new Array(urls.length);
  const errors: string[] = [];
  const startedAt = now();
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      try {
        sockets[i] = await open(urls[i]!, i);
      } catch (err) {
        errors.push(`#${i}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker));
  return { sockets, errors, startedAt, endedAt: now() };
}

/** Closes every socket and waits (briefly) for the close handshakes. */
export async function closeAll(sockets: Iterable<WebSocket | undefined>, timeoutMs = 5000): Promise<void> {
  const closing: Array<Promise<void>> = [];
  for (const ws of sockets) {
    if (!ws || ws.readyState === WebSocket.CLOSED) continue;
    closing.push(new Promise((resolve) => ws.once('close', () => resolve())));
    ws.close(1000, 'bench done');
  }
  const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
  await Promise.race([Promise.all(closing), timer]);
  for (const ws of sockets) if (ws && ws.readyState !== WebSocket.CLOSED) ws.terminate();
}
