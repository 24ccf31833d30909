// Load generator child: the human sockets that receive the senders' frames (targeted CHAT, or the
// SYSTEM_LOG broadcast to every dashboard). It checks that every (sender, sequence) sent arrived
// exactly once, on one socket or on every socket, and measures delivery latency from the send
// time written in the text (the senders process uses the same clock formula).
import { serve } from '../lib/rpc.js';
import { percentiles, Samples } from '../lib/stats.js';
import { closeAll, connectEach, now, parseLocalId, sentAtOf, type Conn } from './common.js';
import { LoopStallWatch } from './loopStalls.js';
import type { ConnectParams, ConnectResult, ReceiversArmParams, ReceiversSettleParams, ReceiversSettleResult } from './protocol.js';

let conns: Conn[] = [];
let closedSockets = 0;
/** The hub's close code for a reader that fell too far behind (it resumes with `since` on reconnect). */
const SLOW_CONSUMER = 4011;
/** Sockets the hub cut off as slow consumers (by index). */
const cutOff = new Set<number>();
/** This process's own starvation: a reader cut off while it was stalled was slow for its own reasons. */
const stalls = new LoopStallWatch();
stalls.start();

/** Receipts per (sender, sequence): counts, so duplicates show up. */
class Ledger {
  private readonly perSender: Uint8Array[];
  unique = 0;
  constructor(senders: number) {
    this.perSender = Array.from({ length: senders }, () => new Uint8Array(256));
  }
  /** False when the sender index or sequence is out of range. */
  record(sender: number, seq: number): boolean {
    let counts = this.perSender[sender];
    if (!counts || !Number.isInteger(seq) || seq < 0) return false;
    if (seq >= counts.length) {
      const bigger = new Uint8Array(Math.max(seq + 1, counts.length * 2));
      bigger.set(counts);
      this.perSender[sender] = counts = bigger;
    }
    if (counts[seq] === 0) this.unique++;
    if (counts[seq]! < 255) counts[seq]!++;
    return true;
  }
  count(sender: number, seq: number): number {
    return this.perSender[sender]?.[seq] ?? 0;
  }
  size(sender: number): number {
    return this.perSender[sender]?.length ?? 0;
  }
}

interface RunState {
  tag: string;
  type: string;
  /** One per socket for a broadcast, else one shared by all. */
  ledgers: Ledger[];
  everySocket: boolean;
  latencySockets: number;
  received: number;
  unexpected: number;
  samples: string[];
  latency: Samples;
  sentAt: Samples;
  receivedAt: Samples;
  otherFrames: number;
  closedBefore: number;
  /** Sockets cut off as slow consumers before this run (its own are the rest). */
  cutOffBefore: Set<number>;
}
let run: RunState | undefined;

/**
 * A string field of a frame the hub serialised (JSON.stringify: no spaces, `"name":"value"`), read
 * without parsing the whole frame: a broadcast brings this process one frame per socket per
 * message, and parsing every one would make the receivers, not the server, the limit.
 */
function stringField(text: string, name: string): string | undefined {
  const key = `"${name}":"`;
  const at = text.indexOf(key);
  if (at < 0) return undefined;
  const from = at + key.length;
  const to = text.indexOf('"', from);
  return to < 0 ? undefined : text.slice(from, to);
}

function onText(socket: number, text: string): void {
  const at = now();
  const r = run;
  if (!r) return;
  if (stringField(text, 'type') !== r.type) {
    r.otherFrames++;
    return;
  }
  r.received++;
  const localId = stringField(text, 'local_id');
  const id = localId === undefined ? undefined : parseLocalId(localId);
  const ledger = r.ledgers[r.everySocket ? socket : 0]!;
  if (!id || id.tag !== r.tag || !ledger.record(id.agent, id.seq)) {
    r.unexpected++;
    if (r.samples.length < 5) r.samples.push(`unexpected local_id ${localId} on socket ${socket}`);
    return;
  }
  if (socket < r.latencySockets) {
    const { payload } = JSON.parse(text) as { payload: unknown };
    const body = typeof payload === 'string' ? payload : String((payload as { content?: unknown }).content);
    const sentAt = sentAtOf(body);
    r.latency.push(at - sentAt);
    r.sentAt.push(sentAt);
  }
  r.receivedAt.push(at);
}

async function connect(p: ConnectParams): Promise<ConnectResult> {
  const opened = await connectEach(p, 'receivers', onText, (index, code) => {
    closedSockets++;
    if (code === SLOW_CONSUMER) cutOff.add(index);
  });
  conns = opened.conns;
  return opened.result;
}

function arm(p: ReceiversArmParams): object {
  run = {
    tag: p.tag,
    type: p.type,
    ledgers: Array.from({ length: p.everySocket ? conns.length : 1 }, () => new Ledger(p.senders)),
    everySocket: p.everySocket,
    latencySockets: p.latencySockets ?? conns.length,
    received: 0,
    unexpected: 0,
    samples: [],
    latency: new Samples(),
    sentAt: new Samples(),
    receivedAt: new Samples(),
    otherFrames: 0,
    closedBefore: closedSockets,
    cutOffBefore: new Set(cutOff),
  };
  return {};
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every (sender, seq < expected[sender]) counted exactly once in `ledger`; the rest is listed. */
function audit(ledger: Ledger, expected: number[], where: string, samples: string[]): { missing: number; duplicates: number; unexpected: number } {
  let missing = 0;
  let duplicates = 0;
  let unexpected = 0;
  expected.forEach((sent, sender) => {
    for (let seq = 0; seq < Math.max(sent, ledger.size(sender)); seq++) {
      const c = ledger.count(sender, seq);
      if (seq >= sent) {
        if (c > 0) unexpected += c;
        if (c > 0 && samples.length < 10) samples.push(`sender ${sender} seq ${seq} received${where} but never sent`);
      } else if (c === 0) {
        missing++;
        if (samples.length < 10) samples.push(`missing sender ${sender} seq ${seq}${where}`);
      } else if (c > 1) {
        duplicates += c - 1;
        if (samples.length < 10) samples.push(`sender ${sender} seq ${seq} received ${c} times${where}`);
      }
    }
  });
  return { missing, duplicates, unexpected };
}

/** Median latency of the messages sent in each second after `startedAt`. */
function medianPerSecond(sentAt: Float64Array, latency: Float64Array, startedAt: number): number[] {
  const buckets: number[][] = [];
  for (let i = 0; i < sentAt.length; i++) {
    const s = Math.max(0, Math.floor((sentAt[i]! - startedAt) / 1000));
    (buckets[s] ??= []).push(latency[i]!);
  }
  return Array.from(buckets, (b) => (b && b.length > 0 ? percentiles(b).p50 : NaN));
}

async function settle(p: ReceiversSettleParams): Promise<ReceiversSettleResult> {
  const r = run;
  if (!r) throw new Error('settle before arm');
  const expectedTotal = p.expected.reduce((a, b) => a + b, 0);
  // A socket the hub cut off gets nothing more (its client would resume with `since`): waiting for
  // it would only run into the timeout, which an overload probe that cuts sockets off always did.
  const missingYet = () => r.ledgers.reduce((n, l, socket) => (r.everySocket && cutOff.has(socket) ? n : n + Math.max(0, expectedTotal - l.unique)), 0);
  const deadline = now() + p.timeoutMs;
  while (missingYet() > 0 && now() < deadline) await sleep(10);
  // A little longer, so duplicates or strays that trail the last expected frame are seen too.
  await sleep(200);
  run = undefined;

  const samples = [...r.samples];
  let missing = 0;
  let missingOnCutOff = 0;
  let duplicates = 0;
  let unexpected = r.unexpected;
  r.ledgers.forEach((ledger, socket) => {
    const wasCutOff = r.everySocket && cutOff.has(socket);
    // What a cut-off socket missed is counted apart (its client resumes it); its samples are not listed.
    const found = audit(ledger, p.expected, r.everySocket ? ` on socket ${socket}` : '', wasCutOff ? [] : samples);
    if (wasCutOff) missingOnCutOff += found.missing;
    else missing += found.missing;
    duplicates += found.duplicates;
    unexpected += found.unexpected;
  });
  let inWindow = 0;
  const perSecond = new Array<number>(Math.max(0, Math.ceil((p.windowEnd - p.windowStart) / 1000))).fill(0);
  for (const t of r.receivedAt.view()) {
    if (t >= p.windowStart && t < p.windowEnd) {
      inWindow++;
      perSecond[Math.floor((t - p.windowStart) / 1000)]!++;
    }
  }
  // Before percentiles(), which sorts the latency samples in place and so unpairs them from sentAt.
  const latencyP50PerSecond = medianPerSecond(r.sentAt.view(), r.latency.view(), p.startedAt);
  return {
    received: r.received,
    duplicates,
    missing,
    unexpected,
    samples,
    inWindow,
    perSecond,
    latency: percentiles(r.latency.view()),
    latencyP50PerSecond,
    otherFrames: r.otherFrames,
    closedSockets: closedSockets - r.closedBefore,
    cutOffSockets: r.everySocket ? [...cutOff].filter((i) => !r.cutOffBefore.has(i)).length : 0,
    missingOnCutOff,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  connect,
  arm,
  settle,
  loopStalls: () => stalls.list(),
  disconnect: async () => {
    await closeAll(conns);
    conns = [];
    closedSockets = 0;
    cutOff.clear();
    return {};
  },
});
