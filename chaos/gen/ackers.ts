// Generator child for the crash checks: agents that send targeted CHAT frames in a closed loop and
// record every ACK, and humans that receive them. When the hub dies, agents reconnect and resend
// every frame not yet acknowledged with its original local_id; humans reconnect with
// `since=<last id seen>`. The ledger and the humans' receipts are the evidence the checks judge.
import { serve } from '../../bench/lib/rpc.js';
import { filler, openSocket, type Conn } from '../../bench/gen/common.js';
import type { AckersConnectParams, AckersDrainResult, AckersRunParams, AckersStatus, HumansResult, Ledger, ResendResult } from './protocol.js';
import { parseServerFrame } from './frames.js';

const RECONNECT_EVERY_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Agent {
  url: string;
  conn?: Conn;
  target: number;
  seq: number;
  /** local_id → text of frames sent and not yet acknowledged, in send order. */
  unacked: Map<string, string>;
  /** Resends waiting for their answer: local_id → the id of the first ACK. */
  probing: Map<string, number>;
}

interface Human {
  url: string;
  id: number;
  conn?: Conn;
  lastId: number;
  seen: Set<number>;
  duplicates: number;
  outOfOrder: number;
  resumes: number;
  /** `since` of each connection, and the first and last id it received: evidence for a gap. */
  connections: Array<{ since: number; first?: number; last?: number; received: number }>;
}

let agents: Agent[] = [];
let humans: Human[] = [];
/** local_id → id of its first ACK. */
const acked = new Map<string, number>();
const targetOf = new Map<string, number>();
const probeAnswers = new Map<string, number>();
const closes: Record<string, number> = {};
let sent = 0;
let errors = 0;
const errorSamples: string[] = [];
let unavailable = 0;
let firstUnavailableAt: number | undefined;
let lastUnavailableAt: number | undefined;
let run: (AckersRunParams & { sending: boolean; filler: string }) | undefined;
let stopped = false;

const noteClose = (code: number) => (closes[String(code)] = (closes[String(code)] ?? 0) + 1);

function onAgentText(agent: Agent, text: string): void {
  const frame = parseServerFrame(text);
  if (frame.type === 'ACK' && frame.local_id !== undefined && frame.id !== undefined) {
    const first = acked.get(frame.local_id);
    if (first === undefined) acked.set(frame.local_id, frame.id);
    if (agent.probing.delete(frame.local_id)) probeAnswers.set(frame.local_id, frame.id);
    agent.unacked.delete(frame.local_id);
    pump(agent);
  } else if (frame.type === 'ERROR') {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(text.slice(0, 200));
    if (frame.errorCode === 'unavailable') {
      unavailable++;
      firstUnavailableAt ??= Date.now();
      lastUnavailableAt = Date.now();
      resendLater(agent, frame.local_id);
    }
  }
}

/** A frame the hub could not store now goes again later, on whatever socket the agent has then. */
function resendLater(agent: Agent, localId: string | undefined): void {
  const delay = run?.resendUnavailableMs;
  if (delay === undefined || localId === undefined || !agent.unacked.has(localId)) return;
  setTimeout(() => {
    const text = agent.unacked.get(localId);
    if (text !== undefined && agent.conn?.open) agent.conn.send(text);
  }, delay);
}

/** Keeps the agent's window full while the run is sending. */
function pump(agent: Agent): void {
  if (!run?.sending || !agent.conn?.open) return;
  while (agent.unacked.size < run.window && agent.seq < run.maxPerAgent) {
    const localId = `${run.tag}.${agents.indexOf(agent)}.${agent.seq++}`;
    const text = JSON.stringify({ type: 'CHAT', target_id: agent.target, local_id: localId, payload: `${localId} ${run.filler}` });
    agent.unacked.set(localId, text);
    targetOf.set(localId, agent.target);
    sent++;
    agent.conn.send(text);
  }
}

async function connectAgent(agent: Agent): Promise<void> {
  while (!stopped) {
    try {
      const conn = await openSocket(agent.url, { timeoutMs: 5_000 });
      agent.conn = conn;
      conn.onText((text) => onAgentText(agent, text));
      conn.onClose((code) => {
        noteClose(code);
        agent.conn = undefined;
        if (!stopped) void connectAgent(agent);
      });
      // Everything not acknowledged goes again with its original local_id: stored ones must be ACKed with their first id, not stored twice.
      for (const text of agent.unacked.values()) conn.send(text);
      pump(agent);
      return;
    } catch {
      await sleep(RECONNECT_EVERY_MS);
    }
  }
}

function onHumanText(human: Human, text: string): void {
  const frame = parseServerFrame(text);
  if (frame.type !== 'CHAT' || frame.id === undefined || frame.local_id === undefined || !run || !frame.local_id.startsWith(`${run.tag}.`)) return;
  if (human.seen.has(frame.id)) human.duplicates++;
  else human.seen.add(frame.id);
  if (frame.id < human.lastId) human.outOfOrder++;
  const c = human.connections.at(-1)!;
  c.first ??= frame.id;
  c.last = frame.id;
  c.received++;
  human.lastId = Math.max(human.lastId, frame.id);
}

async function connectHuman(human: Human, resuming: boolean): Promise<void> {
  while (!stopped) {
    try {
      // The resume point is the highest id seen: the hub must replay everything after it, in order.
      const url = resuming ? `${human.url}&since=${human.lastId}` : human.url;
      const conn = await openSocket(url, { timeoutMs: 5_000 });
      if (resuming) human.resumes++;
      human.connections.push({ since: resuming ? human.lastId : 0, received: 0 });
      human.conn = conn;
      conn.onText((text) => onHumanText(human, text));
      conn.onClose((code) => {
        noteClose(code);
        human.conn = undefined;
        if (!stopped) void connectHuman(human, true);
      });
      return;
    } catch {
      await sleep(RECONNECT_EVERY_MS);
    }
  }
}

const describeConnections = (h: Human) => h.connections.map((c) => `since ${c.since} → ids ${c.first ?? '-'}..${c.last ?? '-'} (${c.received})`).join(', ');

function status(): AckersStatus {
  return {
    agentsOpen: agents.filter((a) => a.conn?.open).length,
    humansOpen: humans.filter((h) => h.conn?.open).length,
    sent,
    acked: acked.size,
    closes,
    errors,
    errorSamples,
    unavailable,
    firstUnavailableAt,
    lastUnavailableAt,
  };
}

serve({
  hello: () => ({ pid: process.pid }),
  async connect(p: AckersConnectParams) {
    humans = p.humanUrls.map((url, i) => ({ url, id: p.humanIds[i]!, lastId: 0, seen: new Set(), duplicates: 0, outOfOrder: 0, resumes: 0, connections: [] }));
    agents = p.agentUrls.map((url, i) => ({ url, target: p.humanIds[i % p.humanIds.length]!, seq: 0, unacked: new Map(), probing: new Map() }));
    await Promise.all(humans.map((h) => connectHuman(h, false)));
    await Promise.all(agents.map((a) => connectAgent(a)));
    return status();
  },
  start(p: AckersRunParams) {
    run = { ...p, sending: true, filler: filler(p.payloadBytes) };
    for (const a of agents) pump(a);
    return status();
  },
  status,
  /** Stops new frames; waits until every frame sent is acknowledged (resending across drops) or `timeoutMs`. */
  async drain(p: { timeoutMs: number }): Promise<AckersDrainResult> {
    if (run) run.sending = false;
    const deadline = Date.now() + p.timeoutMs;
    const unacked = () => agents.reduce((n, a) => n + a.unacked.size, 0);
    while (unacked() > 0 && Date.now() < deadline) await sleep(50);
    return { ...status(), unacked: unacked() };
  },
  /** Sends the last `perAgent` acknowledged frames of each agent again: each must be ACKed with its first id. */
  async resendAcked(p: { perAgent: number; timeoutMs: number }): Promise<ResendResult> {
    let resent = 0;
    const probes: Array<[string, number]> = [];
    agents.forEach((agent, i) => {
      for (let seq = agent.seq - 1, n = 0; seq >= 0 && n < p.perAgent; seq--) {
        const localId = `${run!.tag}.${i}.${seq}`;
        const id = acked.get(localId);
        if (id === undefined || !agent.conn?.open) continue;
        agent.probing.set(localId, id);
        probes.push([localId, id]);
        agent.conn.send(JSON.stringify({ type: 'CHAT', target_id: agent.target, local_id: localId, payload: `${localId} ${run!.filler}` }));
        resent++;
        n++;
      }
    });
    const deadline = Date.now() + p.timeoutMs;
    while (probes.some(([l]) => !probeAnswers.has(l)) && Date.now() < deadline) await sleep(50);
    let sameId = 0;
    let differentId = 0;
    for (const [l, id] of probes) {
      const answer = probeAnswers.get(l);
      if (answer === id) sameId++;
      else if (answer !== undefined) differentId++;
    }
    return { resent, sameId, differentId, unanswered: resent - sameId - differentId };
  },
  /** Waits (bounded) for every acknowledged frame to reach its human, then compares. */
  async humans(p: { timeoutMs: number }): Promise<HumansResult> {
    const byId = new Map(humans.map((h) => [h.id, h]));
    const missingNow = () => [...acked].filter(([l, id]) => !byId.get(targetOf.get(l)!)?.seen.has(id));
    const deadline = Date.now() + p.timeoutMs;
    let missing = missingNow();
    while (missing.length > 0 && Date.now() < deadline) {
      await sleep(100);
      missing = missingNow();
    }
    return {
      expected: acked.size,
      missing: missing.length,
      duplicates: humans.reduce((n, h) => n + h.duplicates, 0),
      outOfOrder: humans.reduce((n, h) => n + h.outOfOrder, 0),
      resumes: humans.reduce((n, h) => n + h.resumes, 0),
      samples: missing.slice(0, 5).map(([l, id]) => `${l} (id ${id})`),
      connections: [...new Set(missing.map(([l]) => targetOf.get(l)!))].slice(0, 3).map((h) => `human ${h}: ${describeConnections(byId.get(h)!)}`),
    };
  },
  ledger: (): Ledger => ({ sent, acked: [...acked] }),
  async disconnect() {
    stopped = true;
    for (const c of [...agents, ...humans]) c.conn?.terminate();
    return {};
  },
});
