// Load generator child: many agent sockets that connect, announce themselves once with a
// SYSTEM_LOG (acknowledged, so the hub has fully set each one up) and then sit idle.
import { serve } from '../lib/rpc.js';
import { closeAll, now, openAll, openSocket, type Conn } from './common.js';
import type { IdleConnectParams, IdleConnectResult, IdleStatus } from './protocol.js';

let conns: Array<Conn | undefined> = [];
let closed = 0;
let acked = 0;
/** ACKs beyond the one each announce should get. */
let duplicateAcks = 0;

const announce = (i: number) =>
  JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `idle bench agent ${i} online` }, local_id: `idle.${process.pid}.${i}` });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Connects more sockets (calls add to those already open); answers once their announces are acknowledged. */
async function connect(p: IdleConnectParams): Promise<IdleConnectResult> {
  const offset = conns.length;
  const ackedBefore = acked;
  const opened = await openAll(p.urls, p.concurrency, async (url, k) => {
    const i = offset + k;
    const conn = await openSocket(url, { localAddress: p.localAddresses[i % p.localAddresses.length] });
    conn.onClose(() => closed++);
    let ackedHere = false;
    conn.onText((text) => {
      if ((JSON.parse(text) as { type: string }).type !== 'ACK') return;
      if (ackedHere) duplicateAcks++;
      else acked++;
      ackedHere = true;
    });
    if (p.announce) conn.send(announce(i));
    return conn;
  });
  conns.push(...opened.sockets);
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
  status: (): IdleStatus => ({ open: conns.filter((c) => c?.open).length, closed, duplicateAcks }),
  disconnect: async () => {
    await closeAll(conns, 10_000);
    conns = [];
    return {};
  },
});
