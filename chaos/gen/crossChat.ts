// Generator child for the Redis-outage check: agents send targeted CHAT at a steady total rate
// (open loop, each with a unique local_id and its send time) to humans on other nodes, and every ACK
// and every read is timed in this one process, so send → ACK and send → read need no shared clock.
// The result judges each message: acknowledged, read once, in its sender's order, and how late.
import { serve } from '../../bench/lib/rpc.js';
import { filler, openSocket, type Conn } from '../../bench/gen/common.js';
import { parseServerFrame } from './frames.js';

interface Agent {
  conn: Conn;
  target: number;
  sent: number;
}

interface Sent {
  agent: number;
  seq: number;
  at: number;
  ackAt?: number;
  readAt?: number;
  reads: number;
}

export interface CrossChatConnect {
  agents: Array<{ url: string; target: number }>;
  humans: string[];
}

export interface CrossChatWindow {
  label: string;
  /** ms since `start`, [from, to). */
  from: number;
  to: number;
  /** Only the messages of the agents on one node: agent i is on node i % nodes (from 0). */
  node?: { index: number; nodes: number };
}

export interface WindowFigures {
  label: string;
  sent: number;
  acked: number;
  read: number;
  /** ACKs that arrived within the window (whenever their message was sent). */
  acksArrived: number;
  ackP50: number;
  ackP99: number;
  readP50: number;
  readP99: number;
  readMax: number;
}

export interface CrossChatResult {
  sent: number;
  acked: number;
  /** Acknowledged but never read. */
  lost: number;
  /** Reads beyond the first. */
  duplicated: number;
  /** Reads that came after a later message of the same sender. */
  outOfOrder: number;
  errors: number;
  errorSamples: string[];
  /** Sockets closed during the run. */
  closes: number;
  windows: WindowFigures[];
  /** Per second of the run (by send time): messages sent, send → ACK and send → read p99 (ms). */
  timeline: Array<{ second: number; sent: number; acksArrived: number; ackP99: number; readP99: number }>;
}

const messages = new Map<string, Sent>();
let agents: Agent[] = [];
let humans: Conn[] = [];
const lastSeqRead = new Map<number, number>();
let duplicated = 0;
let outOfOrder = 0;
let errors = 0;
const errorSamples: string[] = [];
let closes = 0;
let startedAt = 0;
let timer: NodeJS.Timeout | undefined;
let body = '';

const since = () => performance.now() - startedAt;

function onRead(text: string): void {
  const frame = parseServerFrame(text);
  if (frame.type !== 'CHAT' || typeof frame.payload !== 'string') return;
  const key = frame.payload.slice(0, frame.payload.indexOf(' '));
  const m = messages.get(key);
  if (!m) return;
  m.reads++;
  if (m.reads > 1) return void duplicated++;
  m.readAt = since();
  const last = lastSeqRead.get(m.agent) ?? -1;
  if (m.seq < last) outOfOrder++;
  else lastSeqRead.set(m.agent, m.seq);
}

function onAgentText(text: string): void {
  const frame = parseServerFrame(text);
  if (frame.type === 'ACK' && frame.local_id !== undefined) {
    const m = messages.get(frame.local_id);
    if (m && m.ackAt === undefined) m.ackAt = since();
  } else if (frame.type === 'ERROR') {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(text.slice(0, 200));
  }
}

const pct = (values: number[], p: number) => {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

function figures(w: CrossChatWindow): WindowFigures {
  const ofNode = (m: Sent) => w.node === undefined || m.agent % w.node.nodes === w.node.index;
  const inside = [...messages.values()].filter((m) => m.at >= w.from && m.at < w.to && ofNode(m));
  const acks = inside.filter((m) => m.ackAt !== undefined).map((m) => m.ackAt! - m.at);
  const reads = inside.filter((m) => m.readAt !== undefined).map((m) => m.readAt! - m.at);
  let acksArrived = 0;
  for (const m of messages.values()) if (m.ackAt !== undefined && m.ackAt >= w.from && m.ackAt < w.to && ofNode(m)) acksArrived++;
  return {
    label: w.label,
    sent: inside.length,
    acked: acks.length,
    read: reads.length,
    acksArrived,
    ackP50: pct(acks, 50),
    ackP99: pct(acks, 99),
    readP50: pct(reads, 50),
    readP99: pct(reads, 99),
    readMax: reads.length > 0 ? Math.max(...reads) : NaN,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  async connect(p: CrossChatConnect) {
    for (const url of p.humans) {
      const conn = await openSocket(url);
      conn.onText(onRead);
      conn.onClose(() => closes++);
      humans.push(conn);
    }
    agents = [];
    for (const a of p.agents) {
      const conn = await openSocket(a.url);
      conn.onText(onAgentText);
      conn.onClose(() => closes++);
      agents.push({ conn, target: a.target, sent: 0 });
    }
    return { agents: agents.length, humans: p.humans.length };
  },
  /** Sends `rate` messages a second in all, round robin over the agents, every 10 ms. */
  start(p: { rate: number; payloadBytes: number }) {
    body = filler(p.payloadBytes);
    startedAt = performance.now();
    let owed = 0;
    let next = 0;
    let last = startedAt;
    timer = setInterval(() => {
      const t = performance.now();
      owed += ((t - last) / 1000) * p.rate;
      last = t;
      for (; owed >= 1; owed--) {
        const index = next++ % agents.length;
        const agent = agents[index]!;
        const localId = `x${index}.${agent.sent}`;
        messages.set(localId, { agent: index, seq: agent.sent++, at: since(), reads: 0 });
        agent.conn.send(JSON.stringify({ type: 'CHAT', target_id: agent.target, local_id: localId, payload: `${localId} ${body}` }));
      }
    }, 10);
    return {};
  },
  /** ms since `start`. */
  now: () => ({ ms: since() }),
  stop() {
    clearInterval(timer);
    return { sent: messages.size };
  },
  /** Whether every acknowledged message has been read (the drain waits for it). */
  status() {
    let acked = 0;
    let read = 0;
    for (const m of messages.values()) {
      if (m.ackAt !== undefined) acked++;
      if (m.readAt !== undefined) read++;
    }
    return { sent: messages.size, acked, read, errors };
  },
  result(p: { windows: CrossChatWindow[] }): CrossChatResult {
    let acked = 0;
    let lost = 0;
    for (const m of messages.values()) {
      if (m.ackAt === undefined) continue;
      acked++;
      if (m.readAt === undefined) lost++;
    }
    const seconds = Math.ceil(since() / 1000);
    const timeline = Array.from({ length: seconds }, (_, i) => {
      const w = figures({ label: '', from: i * 1000, to: (i + 1) * 1000 });
      return { second: i, sent: w.sent, acksArrived: w.acksArrived, ackP99: w.ackP99, readP99: w.readP99 };
    }).filter((t) => t.sent > 0);
    return { sent: messages.size, acked, lost, duplicated, outOfOrder, errors, errorSamples, closes, windows: p.windows.map(figures), timeline };
  },
  disconnect() {
    for (const a of agents) a.conn.terminate();
    for (const h of humans) h.terminate();
    agents = [];
    humans = [];
    return {};
  },
});
