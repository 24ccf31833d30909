// Load generator child: sender sockets (agents) sending either targeted CHAT frames or untargeted
// SYSTEM_LOG frames, closed-loop (a window of unacknowledged frames per sender) or open-loop (a fixed
// total rate on a schedule). It counts ACKs and ERRORs; the receivers process checks what arrived.
import { serve } from '../lib/rpc.js';
import { closeAll, connectEach, filler, localId, now, stampedText, type Conn } from './common.js';
import type { ConnectResult, SendersConnectParams, SendersRunParams, SendersRunResult, SendKind } from './protocol.js';

let conns: Conn[] = [];
let kind: SendKind = { frame: 'log' };
let closedSockets = 0;

/** The run in progress; socket handlers report into it. */
interface RunState {
  tag: string;
  text: string;
  seq: Int32Array;
  inflight: Int32Array;
  total: number;
  acked: number;
  errors: number;
  errorSamples: string[];
  /** Closed loop: called after a sender's frame was answered, to send its next one. */
  refill?: (sender: number) => void;
}
let run: RunState | undefined;

// Built by hand: the text and local_id hold no characters that need JSON escaping.
function frameOf(r: RunState, sender: number, seq: number): string {
  const text = stampedText(now(), r.text);
  const id = localId(r.tag, sender, seq);
  if (kind.frame === 'chat') {
    const target = kind.targets[(sender + seq) % kind.targets.length]!;
    return `{"type":"CHAT","payload":"${text}","target_id":${target},"local_id":"${id}"}`;
  }
  return `{"type":"SYSTEM_LOG","payload":{"level":"INFO","content":"${text}"},"local_id":"${id}"}`;
}

function send(r: RunState, sender: number): void {
  const seq = r.seq[sender]!++;
  r.inflight[sender]!++;
  r.total++;
  conns[sender]!.send(frameOf(r, sender, seq));
}

function onText(sender: number, text: string): void {
  const r = run;
  if (!r) return;
  const frame = JSON.parse(text) as { type: string; payload?: unknown };
  if (frame.type === 'ACK') r.acked++;
  else if (frame.type === 'ERROR') {
    r.errors++;
    if (r.errorSamples.length < 5) r.errorSamples.push(JSON.stringify(frame.payload));
  } else return;
  r.inflight[sender]!--;
  r.refill?.(sender);
}

async function connect(p: SendersConnectParams): Promise<ConnectResult> {
  kind = p.send;
  const opened = await connectEach(p, 'senders', onText, () => closedSockets++);
  conns = opened.conns;
  return opened.result;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function runLoad(p: SendersRunParams): Promise<SendersRunResult> {
  const n = conns.length;
  const r: RunState = {
    tag: p.tag,
    text: filler(p.payloadBytes),
    seq: new Int32Array(n),
    inflight: new Int32Array(n),
    total: 0,
    acked: 0,
    errors: 0,
    errorSamples: [],
  };
  run = r;
  const closedBefore = closedSockets;
  const startedAt = now();
  const endAt = startedAt + p.durationMs;
  let maxLag = 0;

  if (p.mode.kind === 'closed') {
    const window = p.mode.window;
    const more = () => r.total < p.maxMessages && now() < endAt;
    r.refill = (sender) => {
      if (r.inflight[sender]! < window && more()) send(r, sender);
    };
    for (let k = 0; k < window; k++) for (let a = 0; a < n && more(); a++) send(r, a);
    await sleep(p.durationMs);
    r.refill = undefined;
  } else {
    const perMs = p.mode.rate / 1000;
    // A 1 ms timer: each tick sends every frame whose scheduled time has passed, so the rate holds
    // even when timers fire late; how late the oldest due frame was is the schedule lag.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const t = now();
        const due = Math.min(p.maxMessages, Math.floor((Math.min(t, endAt) - startedAt) * perMs));
        if (r.total < due) maxLag = Math.max(maxLag, t - (startedAt + r.total / perMs));
        while (r.total < due) send(r, r.total % n);
        if (t >= endAt) {
          clearInterval(timer);
          resolve();
        }
      }, 1);
    });
  }
  const sentUntil = now();
  while (r.acked + r.errors < r.total && now() - sentUntil < p.drainMs) await sleep(10);
  run = undefined;
  return {
    sent: Array.from(r.seq),
    total: r.total,
    acked: r.acked,
    errors: r.errors,
    errorSamples: r.errorSamples,
    startedAt,
    endedAt: sentUntil,
    maxScheduleLagMs: maxLag,
    closedSockets: closedSockets - closedBefore,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  connect,
  run: runLoad,
  disconnect: async () => {
    await closeAll(conns);
    conns = [];
    closedSockets = 0;
    return {};
  },
});
