// Shared by the load generators: the clock, the local_id and payload codecs, and connections over
// either transport (plain WebSocket for the hub and the uWS relay, Socket.IO for its relay).
import { io } from 'socket.io-client';
import WebSocket from 'ws';
import type { Transport } from '../lib/servers.js';
import type { ConnectParams, ConnectResult } from './protocol.js';
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

/** Message text: the send time, then filler up to `bytes` so frames have a realistic size. */
export function stampedText(sentAt: number, filler: string): string {
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

/** One client connection as the generators use it, whichever library speaks to the server. */
export interface Conn {
  send(text: string): void;
  onText(listener: (text: string) => void): void;
  /** `code`: the WebSocket close code (1006 when the connection dropped without one; 0 over Socket.IO). */
  onClose(listener: (code: number) => void): void;
  readonly open: boolean;
  /** Starts a clean close; `closed` resolves when it is done. */
  close(): void;
  readonly closed: Promise<void>;
  /** Drops the connection at once. */
  terminate(): void;
}

/** Opens one WebSocket; rejects with the HTTP status when the upgrade is refused. */
export function openSocket(url: string, options: OpenOptions = {}): Promise<Conn> {
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
      const closed = new Promise<void>((done) => ws.once('close', () => done()));
      // Frames can arrive with the upgrade's answer (a resume replay) and be emitted before the
      // caller's `await` resumes: they wait here for the first listener instead of being dropped.
      const listeners: Array<(text: string) => void> = [];
      let early: string[] | undefined = [];
      ws.on('message', (data) => {
        const text = data.toString();
        if (early) early.push(text);
        else for (const l of listeners) l(text);
      });
      resolve({
        send: (text) => ws.send(text),
        onText: (listener) => {
          listeners.push(listener);
          const waiting = early;
          early = undefined;
          for (const text of waiting ?? []) listener(text);
        },
        onClose: (listener) => ws.on('close', (code) => listener(code)),
        get open() {
          return ws.readyState === WebSocket.OPEN;
        },
        close: () => ws.close(1000, 'bench done'),
        closed,
        terminate: () => ws.terminate(),
      });
    });
    ws.once('error', fail);
    ws.once('unexpected-response', (_req, res) => fail(new Error(`upgrade refused: HTTP ${res.statusCode}`)));
  });
}

/** Opens one Socket.IO connection (WebSocket transport, no reconnection, never shared). */
export function openSocketio(url: string, options: OpenOptions = {}): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = io(url, {
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      timeout: options.timeoutMs ?? 15_000,
      ...(options.localAddress ? { localAddress: options.localAddress } : {}),
    });
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
    socket.once('connect', () => {
      socket.off('connect_error');
      const closed = new Promise<void>((done) => socket.once('disconnect', () => done()));
      resolve({
        send: (text) => socket.emit('m', text),
        onText: (listener) => socket.on('m', listener),
        onClose: (listener) => socket.on('disconnect', () => listener(0)),
        get open() {
          return socket.connected;
        },
        close: () => socket.close(),
        closed,
        terminate: () => socket.close(),
      });
    });
  });
}

export const opener = (transport: Transport) => (transport === 'socketio' ? openSocketio : openSocket);

export interface OpenAllResult {
  sockets: Array<Conn | undefined>;
  errors: string[];
  startedAt: number;
  endedAt: number;
}

/** Opens every url with at most `concurrency` handshakes in flight; failures are collected, not thrown. */
export async function openAll(urls: string[], concurrency: number, open: (url: string, index: number) => Promise<Conn>): Promise<OpenAllResult> {
  const sockets: Array<Conn | undefined> = new Array(urls.length);
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

/**
 * Opens every url over `p.transport` (any failure fails the call) and wires each connection's
 * frames, by index, and its close to the handlers.
 */
export async function connectEach(
  p: ConnectParams,
  who: string,
  onText: (index: number, text: string) => void,
  onClose: (index: number, code: number) => void,
): Promise<{ conns: Conn[]; result: ConnectResult }> {
  const opened = await openAll(p.urls, p.concurrency, (url) => opener(p.transport)(url));
  if (opened.errors.length > 0) throw new Error(`${who} could not connect: ${opened.errors.slice(0, 3).join('; ')}`);
  const conns = opened.sockets as Conn[];
  conns.forEach((c, i) => {
    c.onText((text) => onText(i, text));
    c.onClose((code) => onClose(i, code));
  });
  return { conns, result: { connected: conns.length, errors: [], ms: opened.endedAt - opened.startedAt } };
}

/** Closes every connection and waits (briefly) for the close handshakes. */
export async function closeAll(conns: Iterable<Conn | undefined>, timeoutMs = 5000): Promise<void> {
  const open = [...conns].filter((c): c is Conn => c !== undefined && c.open);
  for (const c of open) c.close();
  const timer = new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref());
  await Promise.race([Promise.all(open.map((c) => c.closed)), timer]);
  for (const c of open) if (c.open) c.terminate();
}
