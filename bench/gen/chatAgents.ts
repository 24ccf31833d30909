// Load generator child: agent sockets sending targeted CHAT frames to the human sockets, either
// closed-loop (a window of unacknowledged frames per agent) or open-loop (a fixed total rate on a
// schedule). It counts ACKs and ERRORs; the humans process checks what arrived.
import type WebSocket from 'ws';
import { serve } from '../lib/rpc.js';
import { chatPayload, closeAll, filler, localId, now, openAll, openSocket } from './common.js';
import type { AgentsConnectParams, AgentsRunParams, AgentsRunResult, ConnectResult } from './protocol.js';

let sockets: WebSocket[] = [];
let targets: number[] = [];
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
  /** Closed loop: called after an agent's frame was answered, to send its next one. */
  refill?: (agent: number) => void;
}
let run: RunState | undefined;

function send(r: RunState, agent: number): void {
  const seq = r.seq[agent]!++;
  const target = targets[(agent + seq) % targets.length]!;
  r.inflight[agent]!++;
  r.total++;
  // Built by hand: payload and local_id hold no characters that need JSON escaping.
  const payload = chatPayload(now(), r.text);
  sockets[agent]!.send(`{"type":"CHAT","payload":"${payload}","target_id":${target},"local_id":"${localId(r.tag, agent, seq)}"}`);
}

function onFrame(agent: number, data: WebSocket.RawData): void {
  const r = run;
  if (!r) return;
  const frame = JSON.parse(data.toString()) as { type: string; payload?: unknown };
  if (frame.type === 'ACK') r.acked++;
  else if (frame.type === 'ERROR') {
    r.errors++;
    if (r.errorSamples.length < 5) r.errorSamples.push(JSON.stringify(frame.payload));
  } else return;
  r.inflight[agent]!--;
  r.refill?.(agent);
}

async function connect(p: AgentsConnectParams): Promise<ConnectResult> {
  targets = p.targets;
  const opened = await openAll(p.urls, p.concurrency, (url) => openSocket(url));
  if (opened.errors.length > 0) throw new Error(`agents could not connect: ${opened.errors.slice(0, 3).join('; ')}`);
  sockets = opened.sockets as WebSocket[];
  sockets.forEach((ws, i) => {
    ws.on('message', (data) => onFrame(i, data));
    ws.on('close', () => closedSockets++);
  });
  return { connected: sockets.length, errors: [], ms: opened.endedAt - opened.startedAt };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function runLoad(p: AgentsRunParams): Promise<AgentsRunResult> {
  const n = sockets.length;
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
    r.refill = (agent) => {
      if (now() < endAt && r.inflight[agent]! < window) send(r, agent);
    };
    for (let a = 0; a < n; a++) for (let k = 0; k < window; k++) send(r, a);
    await sleep(p.durationMs);
    r.refill = undefined;
  } else {
    const perMs = p.mode.rate / 1000;
    // A 1 ms timer: each tick sends every frame whose scheduled time has passed, so the rate holds
    // even when timers fire late; how late the oldest due frame was is the schedule lag.
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const t = now();
        const due = Math.floor((Math.min(t, endAt) - startedAt) * perMs);
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
    await closeAll(sockets);
    sockets = [];
    closedSockets = 0;
    return {};
  },
});
