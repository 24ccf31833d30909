// Generator child for the reconnect storm: many agent sockets that announce themselves with an
// acknowledged SYSTEM_LOG, and reconnect (and announce again) whenever they are dropped, waiting as
// the hub's own client does by default (its backoff function and defaults: 0.5 s doubling to a 5 s
// cap, each wait a random part of that), so the storm measures how soon real agents are back. Upgrades
// answered with anything but 101 once the hub listens are counted apart from refused TCP connections
// (the hub still down).
import { backoffDelay, DEFAULT_RECONNECT, RETRY_FLOOR_MS } from '../../src/client/index.js';
import { serve } from '../../bench/lib/rpc.js';
import { openSocket, type Conn } from '../../bench/gen/common.js';
import { parseServerFrame } from './frames.js';

interface Agent {
  url: string;
  conn?: Conn;
  /** Announces acknowledged on the current connection. */
  announced: boolean;
  /** A clean close asked for by the orchestrator: do not come back. */
  leaving: boolean;
}

let agents: Agent[] = [];
let stopped = false;
const closes: Record<string, number> = {};
/** HTTP status of refused upgrades, counted. */
const refusedUpgrades: Record<string, number> = {};
const otherFailures: string[] = [];
let connRefused = 0;
/** False while the orchestrator has the hub down: failures then are expected and only counted. */
let hubUp = true;
let failedWhileDown = 0;
let acks = 0;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The client's wait after `attempt` failures since its last healthy connection. */
const clientWait = (attempt: number) =>
  backoffDelay(attempt, { initialMs: DEFAULT_RECONNECT.initialDelayMs, maxMs: DEFAULT_RECONNECT.maxDelayMs, floorMs: RETRY_FLOOR_MS }, Math.random);

/** Opens (and reopens) an agent's socket; `attempt`: failures so far, as the client counts them. */
async function connect(agent: Agent, i: number, attempt = 0): Promise<void> {
  let upAtStart = hubUp;
  while (!stopped && !agent.leaving) {
    try {
      // Whether the hub was up when this attempt began: a refusal of an attempt made while it was
      // down can reach us after the orchestrator said it is listening again.
      upAtStart = hubUp;
      const conn = await openSocket(agent.url, { timeoutMs: 30_000 });
      agent.conn = conn;
      agent.announced = false;
      conn.onText((text) => {
        const frame = parseServerFrame(text);
        if (frame.type === 'ACK') {
          acks++;
          agent.announced = true;
        }
      });
      conn.onClose((code) => {
        closes[String(code)] = (closes[String(code)] ?? 0) + 1;
        agent.conn = undefined;
        agent.announced = false;
        // As the client does: a dropped connection waits one backoff (the count starts afresh:
        // the storm's connections lived past the client's 10 s "stable" mark) before the next try.
        if (!stopped && !agent.leaving) void sleep(clientWait(0)).then(() => connect(agent, i, 1));
      });
      conn.send(
        JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: `storm agent ${i} online` }, local_id: `storm.${i}.${Date.now()}.${attempt}` }),
      );
      return;
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      const status = /upgrade refused: HTTP (\d+)/.exec(text)?.[1];
      if (!hubUp || !upAtStart) failedWhileDown++;
      else if (status) refusedUpgrades[status] = (refusedUpgrades[status] ?? 0) + 1;
      else if (text.includes('ECONNREFUSED')) connRefused++;
      else if (otherFailures.length < 2000) otherFailures.push(text);
      await sleep(clientWait(attempt));
      attempt++;
    }
  }
}

export interface StormStatus {
  open: number;
  announced: number;
  acks: number;
  closes: Record<string, number>;
  refusedUpgrades: Record<string, number>;
  connRefused: number;
  failedWhileDown: number;
  otherFailures: number;
  otherSamples: string[];
}

const status = (): StormStatus => ({
  open: agents.filter((a) => a.conn?.open).length,
  announced: agents.filter((a) => a.conn?.open && a.announced).length,
  acks,
  closes,
  refusedUpgrades,
  connRefused,
  failedWhileDown,
  otherFailures: otherFailures.length,
  otherSamples: [...new Set(otherFailures)].slice(0, 3),
});

serve({
  hello: () => ({ pid: process.pid }),
  async connect(p: { urls: string[]; concurrency: number }) {
    agents = p.urls.map((url) => ({ url, announced: false, leaving: false }));
    let next = 0;
    const worker = async () => {
      while (next < agents.length) {
        const i = next++;
        await connect(agents[i]!, i);
      }
    };
    await Promise.all(Array.from({ length: p.concurrency }, worker));
    return status();
  },
  status,
  /** The orchestrator is about to stop the hub (false) or has it listening again (true). */
  hubUp(p: { up: boolean }) {
    hubUp = p.up;
    return status();
  },
  /** Closes the given agents cleanly; they stay away. */
  async leave(p: { indices: number[] }) {
    for (const i of p.indices) {
      const a = agents[i]!;
      a.leaving = true;
      a.conn?.close();
    }
    await Promise.all(p.indices.map((i) => agents[i]!.conn?.closed));
    return status();
  },
  async disconnect() {
    stopped = true;
    for (const a of agents) a.conn?.terminate();
    return {};
  },
});
