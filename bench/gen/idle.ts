// Load generator child: many agent sockets that connect, announce themselves once with a
// SYSTEM_LOG (acknowledged, so the hub has fully set each one up) and then sit idle.
import type WebSocket from 'ws';
import { serve } from '../lib/rpc.js';
import { closeAll, now, openAll, openSocket } from './common.js';
import type { IdleConnectParams, IdleConnectResult, IdleStatus } from './protocol.js';

let sockets: Array<WebSocket | undefined> = [];
let closed = 0;
let acked = 0;

const announce = (i: number) =>
  JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `idle bench agent ${i} online` }, local_id: `idle.${process.pid}.${i}` });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Connects more sockets (calls add to those already open); answers once their announces are acknowledged. */
async function connect(p: IdleConnectParams): Promise<IdleConnectResult> {
  const offset = sockets.length;
  const ackedBefore = acked;
  const opened = await openAll(p.urls, p.concurrency, async (url, k) => {
    const i = offset + k;
    const ws = await openSocket(url, { localAddress: p.localAddresses[i % p.localAddresses.length] });
    ws.on('close', () => closed++);
    ws.on('message', (data) => {
      if ((JSON.parse(data.toString()) as { type: string }).type === 'ACK') acked++;
    });
    if (p.announce) ws.send(announce(i));
    return ws;
  });
  sockets.push(...opened.sockets);
  const connected = opened.sockets.filter(Boolean).length;
  const deadline = now() + p.ackTimeoutMs;
  while (p.announce && acked - ackedBefore < connected && now() < deadline) await sleep(20);
  return {
    connected,
    errors: opened.errors.slice(0, 10),
    ms: opened.endedAt - opened.startedAt,
    startedAt: opened.startedAt,
    endedAt: opened.endedAt,
    acked: acked - ackedBefore,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  connect,
  status: (): IdleStatus => ({ open: sockets.filter((ws) => ws && ws.readyState === ws.OPEN).length, closed }),
  disconnect: async () => {
    await closeAll(sockets, 10_000);
    sockets = [];
    return {};
  },
});
