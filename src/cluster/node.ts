// This hub process as one node of a cluster. PostgreSQL is the truth; Redis carries the signals:
//   - committed batches, in the visibility order (batches/);
//   - presence: which node holds which agent's sockets, dead nodes' agents going OFFLINE (presence/);
//   - the bus port's messages, declared by the parts of the hub that own them (bus/redisBus.ts); the
//     durable ones are kept in the store too and read from there by a node Redis did not reach (bus/journal.ts).
// Without Redis a node keeps serving its own sockets, says so in readiness, and reads what the others
// commit from the store on every tick instead; when Redis is back it registers again and re-asserts
// what it holds. Every message on Redis is sealed (bus/busSeal.ts): one that is not is dropped.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ClusterConfig } from '../config.js';
import type { ClusterRepo } from '../store/repositories/cluster.js';
import { BUS_SETTLE_MS, createBatches, type BatchParts } from './batches/batches.js';
import type { GateState } from './batches/gate.js';
import type { BusSeal } from './bus/busSeal.js';
import { createRedisLink } from './bus/redis.js';
import { createBusJournal } from './bus/journal.js';
import { createRedisBus } from './bus/redisBus.js';
import { createRefusalLog } from './bus/refusals.js';
import { createRedisLedger } from './ledger.js';
import type { ClusterMeter } from './metrics.js';
import { createClusterPresence, type PresenceParts } from './presence/presence.js';

export interface ClusterNodeDeps {
  config: ClusterConfig;
  logger: Logger;
  clock: Clock;
  meter: ClusterMeter;
  repo: ClusterRepo;
  /** Seals what this node publishes and opens what it receives. */
  seal: BusSeal;
  /** How long a batch waits for an earlier one before the gap is read from the store (ms). */
  graceMs?: number;
  /** While Redis is away: how often the store is read for what the other nodes committed (ms). */
  tickMs?: number;
  /** How often the store's commit order is polled for batches the bus did not bring (ms). */
  pollMs?: number;
}

/** What the node drives once the core exists. */
export type ClusterParts = BatchParts & PresenceParts;

/** Readiness says `degraded` while this node hands frames over later than this behind their commit. */
const BEHIND_DEGRADED_MS = 2000;

export type ClusterNode = Awaited<ReturnType<typeof createClusterNode>>;

export async function createClusterNode(deps: ClusterNodeDeps) {
  const { config, meter, repo, clock, seal } = deps;
  const { nodeId, nodeTtlMs } = config;
  const log = deps.logger.child({ component: 'cluster', node: nodeId });
  const channels = { batches: `${config.name}:batches`, control: `${config.name}:control` };
  const timers: NodeJS.Timeout[] = [];
  const refused = createRefusalLog({ meter, log });

  const link = createRedisLink({
    url: config.redisUrl,
    nodeId,
    logger: log,
    onMessage,
    onDown(reason) {
      meter.redisOutage();
      batches.down();
      presence.down();
      log.debug({ reason }, 'cluster signals paused');
    },
    onUp() {
      batches.up();
      presence.up();
    },
  });

  async function publish(kind: 'batch' | 'control', channel: string, text: string): Promise<boolean> {
    const sent = await link.publish(channel, seal.seal(channel, text));
    if (kind === 'batch') {
      if (sent) meter.published(kind, text.length);
      else meter.publishFailed(kind);
    }
    return sent;
  }

  // A node beats five times per TTL and counts as dead one beat before the TTL runs out, so its
  // agents go OFFLINE within CLUSTER_NODE_TTL of its last beat (the reaper runs once per beat).
  const beatMs = Math.max(200, Math.floor(nodeTtlMs / 5));
  const presence = createClusterPresence({ link, name: config.name, nodeId, nodeTtlMs, beatMs, repo, clock, log, settleMs: BUS_SETTLE_MS });
  const batches = createBatches({
    nodeId,
    repo,
    meter,
    log,
    publish: (text) => void publish('batch', channels.batches, text),
    note: (deliveries) => presence.note(deliveries),
    graceMs: deps.graceMs,
    tickMs: deps.tickMs,
  });
  const journal = createBusJournal({ nodeId, repo, deliver: (kind, body) => redisBus.hand(kind, body), log });
  const redisBus = createRedisBus({ nodeId, send: (text) => publish('control', channels.control, text), meter, logger: log, journal });

  function onMessage(channel: string, sealed: string): void {
    if (seal.isOwn(sealed)) return;
    const opened = seal.open(channel, sealed);
    if (!opened.ok) return refused(channel, opened.reason, sealed.length);
    if (channel === channels.batches) return batches.receive(opened.text);
    if (channel === channels.control) return redisBus.receive(opened.text);
  }

  return {
    nodeId,
    link,
    /** The bus port on Redis (the control channel). */
    bus: redisBus.bus,
    /** The ledger port on Redis: `name` is the feature's, under the cluster's prefix. */
    ledger: (name: string) => createRedisLedger(link, `${config.name}:${name}`),
    presence,
    handoff: batches.handoff,
    /** The ids restarted (development reset): the visibility order starts over here. */
    restart: batches.restart,

    /** Connects to Redis; a node that cannot reach it at start does not start. */
    async connect(): Promise<void> {
      try {
        await link.connect([channels.batches, channels.control]);
      } catch (err) {
        await link.close();
        throw new Error(`cannot reach Redis at ${redactedUrl(config.redisUrl)}: ${(err as Error).message}`, { cause: err });
      }
    },

    /** Wires the node to the core, then starts ordering, beating and polling. */
    async attach(parts: ClusterParts): Promise<void> {
      await presence.attach(parts);
      await journal.start();
      await batches.start(parts);
      await presence.heartbeat();
      timers.push(setInterval(() => void presence.heartbeat(), beatMs).unref());
      timers.push(setInterval(() => void batches.poll(), deps.pollMs ?? 1000).unref());
      timers.push(setInterval(() => void journal.poll(), deps.pollMs ?? 1000).unref());
      log.info({ name: config.name, nodes: presence.liveNodes.map((n) => n.nodeId) }, `joined the cluster "${config.name}" as ${nodeId}`);
    },

    async close(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      batches.stop();
      await link.close();
    },

    /** For readiness, metrics and inspection. */
    status(): { redis: 'up' | 'down'; reason?: string; nodes: typeof presence.liveNodes; gate: GateState } {
      return { redis: link.up ? 'up' : 'down', ...(link.reason ? { reason: link.reason } : {}), nodes: presence.liveNodes, gate: batches.gate.state() };
    },

    /** How long this node has known of a commit it has not handed to its sockets yet (seconds). */
    behindSeconds: (): number => batches.gate.behindMs() / 1000,

    /** Why readiness should say `degraded` (Redis away, or frames handed over late), if it should. */
    degraded(): string | undefined {
      if (!link.up)
        return `redis unreachable (${link.reason ?? 'reconnecting'}): serving this node's sockets, reading the other nodes' messages from the store`;
      const behind = batches.gate.behindMs();
      if (behind > BEHIND_DEGRADED_MS) return `delivering ${(behind / 1000).toFixed(1)} s behind the commits: catching up from the store`;
      return undefined;
    },
  };
}

function redactedUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, (_, auth: string) => `//${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`);
}
