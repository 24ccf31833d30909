// Generator child for the read-stall check: one agent that sends a targeted CHAT at a steady pace
// and times each ACK (send → ACK, in ms). It stands for every socket of the hub: while a member
// hammers the expensive reads, its acknowledgements must stay as quick as when the hub is idle.
// A frame never acknowledged is counted as missing, never waited for past the phase's end.
import { serve } from '../../bench/lib/rpc.js';
import { now, openSocket, type Conn } from '../../bench/gen/common.js';
import { percentiles, type Percentiles } from '../../bench/lib/stats.js';
import { parseServerFrame } from './frames.js';

export interface AckProbeResult {
  sent: number;
  acked: number;
  /** Sent and not acknowledged within the phase and its grace. */
  missing: number;
  errors: number;
  closes: number[];
  latency: Percentiles;
}

let conn: Conn | undefined;
let target = 0;
const closes: number[] = [];
let phase: { tag: string; sentAt: Map<string, number>; rtts: number[]; errors: number } | undefined;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function onText(text: string): void {
  const frame = parseServerFrame(text);
  if (!phase) return;
  if (frame.type === 'ACK' && frame.local_id !== undefined) {
    const at = phase.sentAt.get(frame.local_id);
    if (at === undefined) return;
    phase.sentAt.delete(frame.local_id);
    phase.rtts.push(now() - at);
  } else if (frame.type === 'ERROR') {
    phase.errors++;
  }
}

serve({
  hello: () => ({ pid: process.pid }),
  async connect(p: { url: string; targetId: number }) {
    target = p.targetId;
    conn = await openSocket(p.url, { timeoutMs: 10_000 });
    conn.onText(onText);
    conn.onClose((code) => {
      closes.push(code);
      conn = undefined;
    });
    return { open: true };
  },
  /** Sends one CHAT every `intervalMs` for `durationMs`, then waits up to `graceMs` for the last ACKs. */
  async measure(p: { tag: string; durationMs: number; intervalMs: number; graceMs: number }): Promise<AckProbeResult> {
    const current = { tag: p.tag, sentAt: new Map<string, number>(), rtts: [] as number[], errors: 0 };
    phase = current;
    let sent = 0;
    const start = now();
    // On a schedule, not after each ACK: a stalled hub must not slow the probe down and hide the stall.
    while (now() - start < p.durationMs) {
      const due = start + sent * p.intervalMs;
      if (now() < due) await sleep(due - now());
      if (!conn?.open) break;
      const localId = `${p.tag}.${sent}`;
      current.sentAt.set(localId, now());
      conn.send(JSON.stringify({ type: 'CHAT', target_id: target, local_id: localId, payload: `ack probe ${localId}` }));
      sent++;
    }
    const deadline = now() + p.graceMs;
    while (current.sentAt.size > 0 && now() < deadline && conn?.open) await sleep(20);
    phase = undefined;
    return {
      sent,
      acked: current.rtts.length,
      missing: current.sentAt.size,
      errors: current.errors,
      closes: [...closes],
      latency: percentiles(current.rtts),
    };
  },
  disconnect() {
    conn?.terminate();
    return {};
  },
});
