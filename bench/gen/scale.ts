// Load generator child for the scale scenario: holds many agent sockets spread over the hub nodes,
// connected directly to each node's port (no balancer), from several source addresses. A socket
// that drops (its node killed) reconnects with the client library's backoff (full jitter, the same
// `backoffDelay`) to another node chosen at random, as a client behind a balancer would land on a
// live node. It can also send acknowledged SYSTEM_LOG frames from random sockets (`chatter`), so
// a node loss can be checked for ACKed frames that the store does not hold.
import { backoffDelay } from '../../src/client/closeCodes.js';
import { serve } from '../lib/rpc.js';
import { closeAll, now, openAll, openSocket, type Conn } from './common.js';
import type { ScaleChatterParams, ScaleChatterResult, ScaleConnectParams, ScaleConnectResult, ScaleStatus } from './protocol.js';

interface Slot {
  token: string;
  node: number;
  address: string;
  conn?: Conn;
  attempt: number;
  /** Frames sent on this socket and not yet acknowledged, by local_id. */
  pending: Set<string>;
}

let params: ScaleConnectParams | undefined;
let slots: Slot[] = [];
let stopping = false;
let down = 0;
let reconnects = 0;
let failedAttempts = 0;
let refusedBusy = 0;
const failures: string[] = [];
let lastReconnectAt = 0;
/** The chatter in progress: what it acknowledged and what dropped unacknowledged. */
let chatter: { acked: string[]; unconfirmed: number; errors: number; errorSamples: string[] } | undefined;

const urlOf = (port: number, token: string) => `ws://127.0.0.1:${port}/api/ws?token=${encodeURIComponent(token)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function wire(slot: Slot, conn: Conn): void {
  slot.conn = conn;
  conn.onText((text) => {
    if (!chatter || slot.pending.size === 0) return;
    const frame = JSON.parse(text) as { type: string; local_id?: string; payload?: { message?: string } };
    if (frame.type === 'ACK' && frame.local_id && slot.pending.delete(frame.local_id)) chatter.acked.push(frame.local_id);
    else if (frame.type === 'ERROR') {
      chatter.errors++;
      if (chatter.errorSamples.length < 5) chatter.errorSamples.push(text.slice(0, 200));
    }
  });
  conn.onClose(() => {
    if (slot.conn !== conn) return;
    slot.conn = undefined;
    if (chatter) chatter.unconfirmed += slot.pending.size;
    slot.pending.clear();
    if (stopping) return;
    down++;
    void reconnect(slot);
  });
}

/** Another node than the one that dropped, at random: a dead node's agents spread over the others. */
function otherNode(current: number): number {
  const n = params!.ports.length;
  if (n === 1) return current;
  const k = Math.floor(Math.random() * (n - 1));
  return k >= current ? k + 1 : k;
}

async function reconnect(slot: Slot): Promise<void> {
  const p = params!;
  for (;;) {
    await sleep(backoffDelay(slot.attempt, { initialMs: p.reconnect.initialMs, maxMs: p.reconnect.maxMs, floorMs: p.reconnect.floorMs }, Math.random));
    if (stopping) return;
    slot.node = otherNode(slot.node);
    slot.attempt++;
    try {
      wire(slot, await openSocket(urlOf(p.ports[slot.node]!, slot.token), { localAddress: slot.address, timeoutMs: 10_000 }));
      slot.attempt = 0;
      down--;
      reconnects++;
      lastReconnectAt = now();
      return;
    } catch (err) {
      failedAttempts++;
      const text = err instanceof Error ? err.message : String(err);
      if (text.includes('HTTP 503')) refusedBusy++;
      if (failures.length < 10) failures.push(text);
    }
  }
}

async function connect(p: ScaleConnectParams): Promise<ScaleConnectResult> {
  params = p;
  const offset = slots.length;
  const added: Slot[] = p.tokens.map((token, i) => ({
    token,
    node: p.homes[i]!,
    address: p.localAddresses[(offset + i) % p.localAddresses.length]!,
    attempt: 0,
    pending: new Set(),
  }));
  slots.push(...added);
  const opened = await openAll(
    added.map((s) => urlOf(p.ports[s.node]!, s.token)),
    p.concurrency,
    async (url, i) => {
      if (now() > p.deadline) throw new Error('the connect budget ran out');
      const conn = await openSocket(url, { localAddress: added[i]!.address, timeoutMs: 60_000 });
      wire(added[i]!, conn);
      return conn;
    },
  );
  return {
    connected: opened.sockets.filter(Boolean).length,
    errors: opened.errors.slice(0, 10),
    ms: opened.endedAt - opened.startedAt,
    startedAt: opened.startedAt,
    endedAt: opened.endedAt,
  };
}

async function runChatter(p: ScaleChatterParams): Promise<ScaleChatterResult> {
  const state = { acked: [] as string[], unconfirmed: 0, errors: 0, errorSamples: [] as string[] };
  chatter = state;
  let sent = 0;
  const started = now();
  const perTick = p.rate / 100;
  let due = 0;
  while (now() - started < p.durationMs) {
    due += perTick;
    for (; due >= 1; due--) {
      const slot = slots[Math.floor(Math.random() * slots.length)];
      if (!slot?.conn?.open) continue;
      const localId = `${p.tag}.${process.pid}.${sent++}`;
      slot.pending.add(localId);
      slot.conn.send(JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `scale ${localId}` }, local_id: localId }));
    }
    await sleep(10);
  }
  const deadline = now() + p.drainMs;
  while (slots.some((s) => s.pending.size > 0) && now() < deadline) await sleep(50);
  chatter = undefined;
  const left = slots.reduce((n, s) => n + s.pending.size, 0);
  for (const s of slots) s.pending.clear();
  return { sent, acked: state.acked, unconfirmed: state.unconfirmed + left, errors: state.errors, errorSamples: state.errorSamples };
}

serve({
  hello: () => ({ pid: process.pid }),
  connect,
  chatter: runChatter,
  status: (): ScaleStatus => {
    const perNode = new Array<number>(params?.ports.length ?? 0).fill(0);
    let open = 0;
    for (const s of slots) {
      if (!s.conn?.open) continue;
      open++;
      perNode[s.node]!++;
    }
    return { open, perNode, down, reconnects, failedAttempts, failures: failures.slice(), lastReconnectAt, refusedBusy };
  },
  disconnect: async () => {
    stopping = true;
    await closeAll(
      slots.map((s) => s.conn),
      20_000,
    );
    slots = [];
    stopping = false;
    return {};
  },
});
