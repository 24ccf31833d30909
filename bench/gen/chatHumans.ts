// Load generator child: the human sockets that receive the agents' CHAT frames. It checks that
// every (agent, sequence) sent arrived exactly once, and measures delivery latency from the send
// time written in the payload (the agents process uses the same clock formula).
import type WebSocket from 'ws';
import { serve } from '../lib/rpc.js';
import { percentiles, Samples } from '../lib/stats.js';
import { closeAll, now, openAll, openSocket, parseLocalId, sentAtOf } from './common.js';
import type { ConnectParams, ConnectResult, HumansArmParams, HumansSettleParams, HumansSettleResult } from './protocol.js';

let sockets: WebSocket[] = [];
let closedSockets = 0;

/** Receipts per (agent, sequence): counts, so duplicates show up. */
class Ledger {
  private readonly perAgent: Uint8Array[];
  unique = 0;
  constructor(agents: number) {
    this.perAgent = Array.from({ length: agents }, () => new Uint8Array(1024));
  }
  /** False when the agent index is out of range. */
  record(agent: number, seq: number): boolean {
    let counts = this.perAgent[agent];
    if (!counts || !Number.isInteger(seq) || seq < 0) return false;
    if (seq >= counts.length) {
      const bigger = new Uint8Array(Math.max(seq + 1, counts.length * 2));
      bigger.set(counts);
      this.perAgent[agent] = counts = bigger;
    }
    if (counts[seq] === 0) this.unique++;
    if (counts[seq]! < 255) counts[seq]!++;
    return true;
  }
  count(agent: number, seq: number): number {
    return this.perAgent[agent]?.[seq] ?? 0;
  }
  size(agent: number): number {
    return this.perAgent[agent]?.length ?? 0;
  }
}

interface RunState {
  tag: string;
  ledger: Ledger;
  received: number;
  unexpected: number;
  samples: string[];
  latency: Samples;
  receivedAt: Samples;
  otherFrames: number;
  closedBefore: number;
}
let run: RunState | undefined;

function onFrame(data: WebSocket.RawData): void {
  const at = now();
  const r = run;
  if (!r) return;
  const frame = JSON.parse(data.toString()) as { type: string; payload: string; local_id?: string };
  if (frame.type !== 'CHAT') {
    r.otherFrames++;
    return;
  }
  r.received++;
  const id = frame.local_id === undefined ? undefined : parseLocalId(frame.local_id);
  if (!id || id.tag !== r.tag || !r.ledger.record(id.agent, id.seq)) {
    r.unexpected++;
    if (r.samples.length < 5) r.samples.push(`unexpected local_id ${frame.local_id}`);
    return;
  }
  r.latency.push(at - sentAtOf(frame.payload));
  r.receivedAt.push(at);
}

async function connect(p: ConnectParams): Promise<ConnectResult> {
  const opened = await openAll(p.urls, p.concurrency, (url) => openSocket(url));
  if (opened.errors.length > 0) throw new Error(`humans could not connect: ${opened.errors.slice(0, 3).join('; ')}`);
  sockets = opened.sockets as WebSocket[];
  for (const ws of sockets) {
    ws.on('message', onFrame);
    ws.on('close', () => closedSockets++);
  }
  return { connected: sockets.length, errors: [], ms: opened.endedAt - opened.startedAt };
}

function arm(p: HumansArmParams): object {
  run = {
    tag: p.tag,
    ledger: new Ledger(p.agents),
    received: 0,
    unexpected: 0,
    samples: [],
    latency: new Samples(),
    receivedAt: new Samples(),
    otherFrames: 0,
    closedBefore: closedSockets,
  };
  return {};
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function settle(p: HumansSettleParams): Promise<HumansSettleResult> {
  const r = run;
  if (!r) throw new Error('settle before arm');
  const expectedTotal = p.expected.reduce((a, b) => a + b, 0);
  const deadline = now() + p.timeoutMs;
  while (r.ledger.unique < expectedTotal && now() < deadline) await sleep(10);
  // A little longer, so duplicates or strays that trail the last expected frame are seen too.
  await sleep(200);
  run = undefined;

  let missing = 0;
  let duplicates = 0;
  let unexpected = r.unexpected;
  const samples = [...r.samples];
  p.expected.forEach((sent, agent) => {
    for (let seq = 0; seq < Math.max(sent, r.ledger.size(agent)); seq++) {
      const c = r.ledger.count(agent, seq);
      if (seq >= sent) {
        if (c > 0) unexpected += c;
        if (c > 0 && samples.length < 10) samples.push(`agent ${agent} seq ${seq} received but never sent`);
      } else if (c === 0) {
        missing++;
        if (samples.length < 10) samples.push(`missing agent ${agent} seq ${seq}`);
      } else if (c > 1) {
        duplicates += c - 1;
        if (samples.length < 10) samples.push(`agent ${agent} seq ${seq} received ${c} times`);
      }
    }
  });
  const times = r.receivedAt.view();
  let inWindow = 0;
  let lastAt = 0;
  const perSecond = new Array<number>(Math.max(0, Math.ceil((p.windowEnd - p.windowStart) / 1000))).fill(0);
  for (const t of times) {
    if (t >= p.windowStart && t < p.windowEnd) {
      inWindow++;
      perSecond[Math.floor((t - p.windowStart) / 1000)]!++;
    }
    if (t > lastAt) lastAt = t;
  }
  return {
    received: r.received,
    unique: r.ledger.unique,
    duplicates,
    missing,
    unexpected,
    samples,
    inWindow,
    perSecond,
    latency: percentiles(r.latency.view()),
    otherFrames: r.otherFrames,
    closedSockets: closedSockets - r.closedBefore,
    lastAt,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  connect,
  arm,
  settle,
  disconnect: async () => {
    await closeAll(sockets);
    sockets = [];
    closedSockets = 0;
    return {};
  },
});
