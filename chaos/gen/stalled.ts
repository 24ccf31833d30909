// Generator child for the stalled-dashboards check: human sockets that stop reading right after
// they open (the TCP receive window fills, then the hub's send buffer), as a frozen browser tab
// would. After the load they read again, so the close frame the hub queued reaches them and its
// code can be counted.
import WebSocket from 'ws';
import { serve } from '../../bench/lib/rpc.js';

interface Stalled {
  ws: WebSocket;
  code?: number;
}

let sockets: Stalled[] = [];
const failures: string[] = [];

function open(url: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 30_000 });
    const s: Stalled = { ws };
    ws.once('error', reject);
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.on('error', () => undefined);
      ws.pause();
      ws.on('close', (code) => (s.code = code));
      resolve(s);
    });
  });
}

export interface StalledStatus {
  open: number;
  closes: Record<string, number>;
  failures: number;
  failureSamples: string[];
}

const status = (): StalledStatus => {
  const closes: Record<string, number> = {};
  for (const s of sockets) if (s.code !== undefined) closes[String(s.code)] = (closes[String(s.code)] ?? 0) + 1;
  return { open: sockets.filter((s) => s.code === undefined).length, closes, failures: failures.length, failureSamples: failures.slice(0, 3) };
};

serve({
  hello: () => ({ pid: process.pid }),
  async connect(p: { urls: string[]; concurrency: number }) {
    let next = 0;
    const worker = async () => {
      while (next < p.urls.length) {
        const url = p.urls[next++]!;
        try {
          sockets.push(await open(url));
        } catch (err) {
          failures.push(err instanceof Error ? err.message : String(err));
        }
      }
    };
    await Promise.all(Array.from({ length: p.concurrency }, worker));
    return status();
  },
  /** Reads again (discarding what arrives) so queued close frames come through. */
  resume() {
    for (const s of sockets) {
      s.ws.on('message', () => undefined);
      s.ws.resume();
    }
    return status();
  },
  status,
  /** Drops every socket at once (the memory guard). */
  terminate() {
    for (const s of sockets) s.ws.terminate();
    return status();
  },
  disconnect() {
    for (const s of sockets) s.ws.terminate();
    sockets = [];
    return {};
  },
});
