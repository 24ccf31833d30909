// This hub process as one node of a cluster. PostgreSQL is the truth; Redis carries the signals:
//   - each committed batch is published once to every node, and every node hands batches to its own
//     sockets in the visibility order (gate.ts), reading from the store what the bus did not bring;
//   - presence: which node holds which agent's sockets (registry.ts), decided with an order so the
//     store keeps the newest decision, and dead nodes' agents going OFFLINE;
//   - control: closing a user's sockets on every node (revocation), decisions for the leader's Butler.
// Without Redis a node keeps serving its own sockets, says so in readiness, and reads what the others
// commit from the store on every tick instead (gate.ts); when Redis is back it registers again and
// re-asserts what it holds. Every message on Redis is sealed (busSeal.ts): one that is not is dropped.
import type { Logger } from 'pino';
import type { ClusterConfig } from '../config.js';
import { audienceOf } from '../delivery/audience.js';
import type { Handoff } from '../delivery/deliver.js';
import type { AddressTable } from '../delivery/addressTable.js';
import type { Delivery, PresencePort, Principal } from '../delivery/types.js';
import { monitorFrame, toMessageFrame, type FrameSource } from '../protocol/frames.js';
import type { PresencePatch } from '../store/batchWriter.js';
import type { ClusterRepo } from '../store/repositories/cluster.js';
import type { MessageRow } from '../store/schema.js';
import type { Clock } from '../clock.js';
import type { BusSeal, Refusal } from './busSeal.js';
import { createOrderGate, type GateState } from './gate.js';
import type { ClusterMeter } from './metrics.js';
import { createRedisLink } from './redis.js';
import { createRegistry, type Decision } from './registry.js';
import { decodeBatch, decodeControl, encodeBatch, type BatchMessage, type ControlMessage } from './wire.js';

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
export interface ClusterParts {
  /** Hands frames to this node's endpoints (the router's DELIVER). */
  deliver(deliveries: Delivery[]): void;
  /** Runs one delivery round (sockets corked once). */
  round(fn: () => void): void;
  /** Queues a presence change in the pipeline. */
  presence(userId: number, patch: PresencePatch): void;
  /** This node's address table (read only): who it holds. */
  table(): AddressTable;
  /** Closes a user's sockets here (revocation decided on another node). */
  closeUser(userId: number, code: number, reason: string): void;
  closeAll(code: number, reason: string): void;
  /** Another node decided an authorization request (the leader acts on it). */
  decided(actionId: string): void;
  /** A connector changed through another node (the leader reloads it). */
  connectorChanged(): void;
  /** The ids restarted (development reset on another node). */
  reset(): void;
  /** Resolves once every batch this node handed to the store so far has been handed off here. */
  settled(): Promise<void>;
  /** Whether this node holds the singletons' lease. */
  isLeader(): boolean;
  /** Butler's user id: the leader records Butler's open streams so a successor can end them. */
  butlerId: number;
}

/** A Butler answer that was streaming when its node stopped: where it went and what it had said. */
export interface OrphanedStream {
  streamId: string;
  targetId: number;
  conversationId: number | null;
  text: string;
}

/** Rows read per query from the store (a full page is followed by the next at once). */
const FILL_PAGE = 1000;
/** Readiness says `degraded` while this node hands frames over later than this behind their commit. */
const BEHIND_DEGRADED_MS = 2000;
/**
 * After Redis is back, the store is still read on every tick for this long: the other nodes reconnect
 * up to one backoff step (2 s) later, and until they do, what they commit is not on the bus.
 */
const BUS_SETTLE_MS = 3000;
/** Messages on the bus that fail their seal are logged at most once per this interval (with a count). */
const REFUSAL_LOG_MS = 60_000;

export type ClusterNode = Awaited<ReturnType<typeof createClusterNode>>;

export async function createClusterNode(deps: ClusterNodeDeps) {
  const { config, meter, repo, clock } = deps;
  const { nodeId, nodeTtlMs } = config;
  const seal = deps.seal;
  const log = deps.logger.child({ component: 'cluster', node: nodeId });
  const channels = { batches: `${config.name}:batches`, control: `${config.name}:control` };
  let parts: ClusterParts | undefined;
  const need = (): ClusterParts => {
    if (!parts) throw new Error('the cluster node was used before the core was attached');
    return parts;
  };
  /** `last` of this node's newest committed batch: its relays go out after it. */
  let lastOwn = 0;
  let liveNodes: Array<{ nodeId: string; lastBeatMsAgo: number }> = [];
  /** Set while Redis is away (or a change's fate is unknown): this node's hash must be written whole again. */
  let mustRegister = true;
  /**
   * Agent sockets counted on Redis before they were accepted (see `admit`), by connection key, with
   * the order of that count once Redis answered. Each one is +1 in this node's hash until its socket
   * binds as the agent's first here (the table's +1 from then on) or ends.
   */
  const admissions = new Map<number, { userId: number; seq?: number }>();
  /** Agents whose last socket here closed while Redis's answer was lost: decided after registering again. */
  const unsure = new Set<number>();
  let lastOutageAt = -Infinity;
  /** After an outage every node's last beat is old: nobody is declared dead until all had a beat. */
  let reapNotBefore = 0;
  const timers: NodeJS.Timeout[] = [];
  let settling: NodeJS.Timeout | undefined;
  /** Presence decisions waiting for Redis's answer (shutdown waits for them). */
  const deciding = new Set<Promise<void>>();

  const gate = createOrderGate<MessageRow>({
    graceMs: deps.graceMs ?? 500,
    tickMs: deps.tickMs ?? 100,
    pageSize: FILL_PAGE,
    async read(after, limit) {
      const rows = await repo.catchUp(after, limit);
      // Batches of this node committed before the read are offered before its rows are merged.
      await need().settled();
      return rows;
    },
    hand,
    onError: (err) => log.error({ err }, 'handing over what was committed failed'),
  });

  const link = createRedisLink({
    url: config.redisUrl,
    nodeId,
    logger: log,
    onMessage,
    onDown(reason) {
      meter.redisOutage();
      clearTimeout(settling);
      gate.setBus(false);
      mustRegister = true;
      lastOutageAt = performance.now();
      log.debug({ reason }, 'cluster signals paused');
    },
    onUp() {
      reapNotBefore = performance.now() + nodeTtlMs;
      clearTimeout(settling);
      settling = setTimeout(() => gate.setBus(true), BUS_SETTLE_MS).unref();
      // What was said while Redis was away is in the store: the poll catches up; presence is re-asserted.
      void repo.lastCommitted().then(
        (committed) => gate.observe(committed),
        () => undefined,
      );
      void heartbeat();
    },
  });
  // A node beats five times per TTL and counts as dead one beat before the TTL runs out, so its
  // agents go OFFLINE within CLUSTER_NODE_TTL of its last beat (the reaper runs once per beat).
  const beatMs = Math.max(200, Math.floor(nodeTtlMs / 5));
  const registry = createRegistry({ redis: link.commands, name: config.name, nodeId, ttlMs: nodeTtlMs - beatMs });

  function onMessage(channel: string, sealed: string): void {
    if (seal.isOwn(sealed)) return;
    const opened = seal.open(channel, sealed);
    if (!opened.ok) return refused(channel, opened.reason, sealed.length);
    const text = opened.text;
    if (channel === channels.batches) {
      const batch = decodeBatch(text);
      if (!batch) return log.warn({ bytes: text.length }, 'ignored a batch message that is not one');
      if (batch.node === nodeId) return;
      meter.received('batch', text.length);
      return gate.offer({ prev: batch.prev, last: batch.last, run: (skipUpTo) => handOver(batch, skipUpTo) });
    }
    if (channel === channels.control) {
      const message = decodeControl(text);
      if (!message) return log.warn({ bytes: text.length }, 'ignored a control message that is not one');
      if (message.node === nodeId) return;
      meter.received('control', text.length);
      control(message);
    }
  }

  /** Refusals since the last log line, by reason; logged at most once per REFUSAL_LOG_MS. */
  const refusals = new Map<Refusal, number>();
  let refusalLoggedAt = -Infinity;
  function refused(channel: string, reason: Refusal, bytes: number): void {
    meter.refused(reason);
    refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    const t = performance.now();
    if (t - refusalLoggedAt < REFUSAL_LOG_MS) return;
    refusalLoggedAt = t;
    const counts = Object.fromEntries(refusals);
    refusals.clear();
    log.warn(
      { channel, reasons: counts, bytes },
      'dropped messages on the cluster bus that failed their seal: something without the cluster secret publishes on its channels, or a node has another CLUSTER_SECRET (or JWT_SECRET)',
    );
  }

  /** Agents the store shows ONLINE, kept from every PRESENCE that passes (Butler asks it). */
  const online = new Set<number>();
  function notePresence(deliveries: readonly Pick<Delivery, 'type' | 'text' | 'senderId'>[]): void {
    for (const d of deliveries) {
      if (d.type !== 'PRESENCE') continue;
      const frame = JSON.parse(d.text) as { payload?: { online?: boolean } };
      if (frame.payload?.online) online.add(d.senderId);
      else online.delete(d.senderId);
    }
  }

  const streamsKey = `${config.name}:butler-streams`;
  /**
   * The leader keeps each open Butler stream on Redis (where it goes, the text so far), so that when
   * it dies the next leader ends the stream with what was said and a note, instead of the asker
   * waiting for an end that never comes.
   */
  function recordStreams(deliveries: readonly Delivery[]): void {
    const p = need();
    let multi: ReturnType<typeof link.commands.multi> | undefined;
    for (const d of deliveries) {
      if (d.senderId !== p.butlerId || (d.type !== 'CHAT_STREAM' && d.type !== 'CHAT_STREAM_END') || !d.frame?.stream_id) continue;
      multi ??= link.commands.multi();
      const id = d.frame.stream_id;
      if (d.type === 'CHAT_STREAM') {
        multi.hsetnx(streamsKey, id, JSON.stringify({ targetId: d.audience.target ?? 0, conversationId: d.frame.conversation_id ?? null }));
        multi.append(`${streamsKey}:${id}`, typeof d.frame.payload === 'string' ? d.frame.payload : '');
      } else multi.hdel(streamsKey, id).del(`${streamsKey}:${id}`);
    }
    if (multi && link.up) void multi.exec().catch(() => undefined);
  }

  function handOver(batch: BatchMessage, skipUpTo: number): void {
    const deliveries = skipUpTo > 0 ? batch.deliveries.filter((d) => d.id === undefined || d.id > skipUpTo) : batch.deliveries;
    notePresence(deliveries);
    const { deliver, round } = need();
    if (deliveries.length > 0) round(() => deliver(deliveries as Delivery[]));
    meter.lag(Math.max(0, Date.now() - batch.at) / 1000);
  }

  function control(message: ControlMessage): void {
    const p = need();
    switch (message.kind) {
      case 'close-user':
        return p.closeUser(message.userId, message.code, message.reason);
      case 'close-all':
        return p.closeAll(message.code, message.reason);
      case 'decided':
        if (p.isLeader()) p.decided(message.actionId);
        return;
      case 'connector-changed':
        if (p.isLeader()) p.connectorChanged();
        return;
      case 'reset':
        gate.restart(0);
        lastOwn = 0;
        return p.reset();
    }
  }

  /** Hands rows read from the store over as live delivery would have (the bus did not bring them). */
  function hand(rows: MessageRow[]): void {
    const deliveries: Delivery[] = rows.map((row) => {
      const source: FrameSource = { ...row, payload: JSON.parse(row.payload) as unknown };
      const audience = audienceOf(row);
      const delivery: Delivery = { type: row.type, text: JSON.stringify(toMessageFrame(source)), audience, senderId: row.sender_id, id: row.id };
      if (audience.monitor) delivery.monitorText = monitorFrame(source);
      return delivery;
    });
    const { deliver, round } = need();
    round(() => deliver(deliveries));
    meter.filled(rows.length);
    // While Redis is away (and just after) this is how every frame of the other nodes arrives: not worth a line each.
    if (gate.state().bus)
      log.info({ from: rows[0]!.id, to: rows[rows.length - 1]!.id, rows: rows.length }, 'handed over from the store what the bus did not bring');
  }

  async function publish(kind: 'batch' | 'control', channel: string, text: string): Promise<void> {
    if (await link.publish(channel, seal.seal(channel, text))) meter.published(kind, text.length);
    else meter.publishFailed(kind);
  }

  /** Registers this node's hash again at the next beat, which is now if none is running. */
  function registerAgain(): void {
    mustRegister = true;
    void heartbeat();
  }

  /** Whether this node holds a socket of the agent (bound, or admitted and about to open). */
  function holdsHere(userId: number): boolean {
    if (need().table().countOf(userId) > 0) return true;
    for (const a of admissions.values()) if (a.userId === userId) return true;
    return false;
  }

  /**
   * Presence decided here, with the bus's order when Redis answers, alone (unordered) when Redis is
   * away. `key` is the socket whose binding made the agent held here: if it was admitted, Redis has
   * counted it already and only the ONLINE is left to store.
   */
  function decide(userId: number, delta: 1 | -1, key?: number): void {
    const { presence } = need();
    const patch: PresencePatch =
      delta === 1
        ? { status: 'ONLINE', online: 1, last_seen_at: clock(), last_report: 'websocket_connected' }
        : { status: 'OFFLINE', online: 0, last_seen_at: clock(), last_report: 'websocket_disconnected' };
    const admitted = key === undefined ? undefined : admissions.get(key);
    if (delta === 1 && admitted) {
      admissions.delete(key!);
      return presence(userId, admitted.seq === undefined ? patch : { ...patch, seq: admitted.seq });
    }
    if (!link.up) {
      mustRegister = true;
      return presence(userId, patch);
    }
    const decision = registry.change(userId, delta).then(
      ({ total, seq, registered }) => {
        if (!registered) registerAgain();
        // A close while a socket of the agent is still held (on any node) changes nothing: it stays ONLINE.
        if (delta === -1 && (total > 0 || holdsHere(userId))) return;
        presence(userId, { ...patch, seq });
      },
      (err: unknown) => {
        // Whether Redis applied the change is unknown: the next registration makes the count true.
        registerAgain();
        // Open here: ONLINE whatever the others hold. A close is decided once the count is true
        // again, unless Redis is away (then alone, and re-asserted by the holders when it is back).
        if (delta === 1 || !link.up) return presence(userId, patch);
        unsure.add(userId);
        log.warn({ err, userId }, 'an agent’s close got no answer from Redis: it is decided once this node has registered again');
      },
    );
    deciding.add(decision);
    void decision.finally(() => deciding.delete(decision));
  }

  function offline(decisions: readonly Decision[], report: string): void {
    const at = clock();
    for (const { userId, seq } of decisions) need().presence(userId, { status: 'OFFLINE', online: 0, last_seen_at: at, last_report: report, seq });
  }

  /**
   * This node's hash as the decisions made here have built it: one per agent bound here (decisions
   * are made on an agent's first socket and its last), plus one per admitted socket not yet bound.
   */
  function heldHere(): Map<number, number> {
    const counts = new Map<number, number>();
    for (const endpoint of need().table().all) if (endpoint.user.role === 'AGENT') counts.set(endpoint.user.id, 1);
    for (const { userId } of admissions.values()) counts.set(userId, (counts.get(userId) ?? 0) + 1);
    return counts;
  }

  /** Writes this node's hash whole, re-asserts what it holds, and decides the closes Redis did not answer. */
  async function registerWhole(): Promise<void> {
    // Taken in the same turn as the registration is sent: changes sent before it are in the
    // counts, changes after it reach Redis after it.
    const held = heldHere();
    const closed = [...unsure].filter((userId) => !held.has(userId));
    unsure.clear();
    mustRegister = false;
    try {
      const seq = await registry.register(held);
      // Redis lost this node (a restart) or another node declared it dead: what it holds is ONLINE again.
      const at = clock();
      for (const userId of held.keys()) need().presence(userId, { status: 'ONLINE', online: 1, last_seen_at: at, seq });
      if (held.size > 0) log.info({ agents: held.size }, 'registered again with the cluster: re-asserted the agents this node holds');
      if (closed.length === 0) return;
      const gone = await registry.unheld(closed);
      offline(gone, 'websocket_disconnected');
      log.info({ agents: closed.length, offline: gone.length }, 'decided the agents whose close got no answer from Redis');
    } catch (err) {
      mustRegister = true;
      for (const userId of closed) unsure.add(userId);
      throw err;
    }
  }

  let beating = false;
  async function heartbeat(): Promise<void> {
    if (beating || !link.up || !parts) return;
    beating = true;
    try {
      const missing = await registry.beat();
      if (missing || mustRegister) await registerWhole();
      if (performance.now() >= reapNotBefore) {
        const { dead, offline: gone } = await registry.reap();
        for (const node of dead) log.warn({ deadNode: node }, `node ${node} is silent for ${nodeTtlMs} ms: its sockets no longer count`);
        offline(gone, 'node lost');
      }
      liveNodes = await registry.live();
      if (need().isLeader()) await reconcile();
    } catch (err) {
      log.debug({ err }, 'cluster heartbeat failed');
    } finally {
      beating = false;
    }
  }

  /**
   * The leader's sweep: agents the store shows ONLINE that no live node holds (their node died while
   * Redis was away, say) go OFFLINE. Not right after an outage: nodes need a beat to register again.
   */
  async function reconcile(): Promise<void> {
    if (performance.now() - lastOutageAt < 2 * nodeTtlMs) return;
    const candidates = await repo.onlineAgents((Date.now() - nodeTtlMs) * 1000);
    offline(await registry.unheld(candidates), 'node lost');
  }

  async function poll(): Promise<void> {
    try {
      gate.observe(await repo.lastCommitted());
    } catch (err) {
      log.debug({ err }, 'could not read the commit order');
    }
  }

  return {
    nodeId,
    link,

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
    async attach(next: ClusterParts): Promise<void> {
      parts = next;
      const committed = await repo.lastCommitted();
      for (const id of await repo.onlineAgents(Number.MAX_SAFE_INTEGER)) online.add(id);
      lastOwn = committed;
      gate.start(committed);
      await heartbeat();
      timers.push(setInterval(() => void heartbeat(), beatMs).unref());
      timers.push(setInterval(() => void poll(), deps.pollMs ?? 1000).unref());
      log.info({ name: config.name, nodes: liveNodes.map((n) => n.nodeId) }, `joined the cluster "${config.name}" as ${nodeId}`);
    },

    /** The pipeline's seam: publishes each settled batch and hands it over in the visibility order. */
    handoff(batch: Handoff): void {
      const prev = batch.order?.prev ?? lastOwn;
      const last = batch.order?.last ?? lastOwn;
      if (batch.order) lastOwn = Math.max(lastOwn, last);
      notePresence(batch.deliveries);
      recordStreams(batch.deliveries);
      if (batch.deliveries.length > 0 || last > prev) void publish('batch', channels.batches, encodeBatch(nodeId, prev, last, batch.deliveries));
      gate.offer({ prev, last, run: () => batch.run() });
    },

    /** Whether the store shows the agent ONLINE (any node holds it), as of the last PRESENCE seen. */
    isOnline: (userId: number): boolean => online.has(userId),

    /** The router's presence port in cluster mode: an agent is ONLINE while any node holds it. */
    presence: {
      online: (user, key) => decide(user.id, 1, key),
      offline: (user) => decide(user.id, -1),
    } satisfies PresencePort,

    /**
     * Counts an agent's socket on Redis before it is accepted, so no node can decide the agent gone
     * once its client has seen the socket open (an agent that opens a new socket on one node and then
     * closes its old one on another stays ONLINE throughout). Never rejects: without Redis the
     * socket is decided alone when it binds.
     */
    async admit(key: number, user: Principal): Promise<void> {
      if (user.role !== 'AGENT' || !link.up || !parts) return;
      const admitted: { userId: number; seq?: number } = { userId: user.id };
      admissions.set(key, admitted);
      try {
        const { seq, registered } = await registry.change(user.id, 1);
        admitted.seq = seq;
        if (!registered) registerAgain();
      } catch (err) {
        registerAgain();
        log.debug({ err }, 'admitting a socket got no answer from redis');
      }
    },

    /** The admitted socket ended without binding as its agent's first here (refused, aborted, or a second socket closing). */
    release(key: number): void {
      const admitted = admissions.get(key);
      if (!admitted) return;
      admissions.delete(key);
      decide(admitted.userId, -1);
    },

    /** Revocation everywhere: this node closes its own sockets; the others are told. */
    closeUser(userId: number, code: number, reason: string): void {
      void publish('control', channels.control, JSON.stringify({ kind: 'close-user', node: nodeId, userId, code, reason } satisfies ControlMessage));
    },
    closeAll(code: number, reason: string): void {
      void publish('control', channels.control, JSON.stringify({ kind: 'close-all', node: nodeId, code, reason } satisfies ControlMessage));
    },
    decided(actionId: string): void {
      void publish('control', channels.control, JSON.stringify({ kind: 'decided', node: nodeId, actionId } satisfies ControlMessage));
    },
    connectorChanged(): void {
      void publish('control', channels.control, JSON.stringify({ kind: 'connector-changed', node: nodeId } satisfies ControlMessage));
    },
    reset(): void {
      gate.restart(0);
      lastOwn = 0;
      void publish('control', channels.control, JSON.stringify({ kind: 'reset', node: nodeId } satisfies ControlMessage));
    },

    /** The streams a previous leader left open (and forgets them): the new leader ends each. */
    async takeOrphanedStreams(): Promise<OrphanedStream[]> {
      const open = await link.commands.hgetall(streamsKey);
      const out: OrphanedStream[] = [];
      for (const [streamId, meta] of Object.entries(open)) {
        const { targetId, conversationId } = JSON.parse(meta) as { targetId: number; conversationId: number | null };
        const text = (await link.commands.get(`${streamsKey}:${streamId}`)) ?? '';
        await link.commands.multi().hdel(streamsKey, streamId).del(`${streamsKey}:${streamId}`).exec();
        out.push({ streamId, targetId, conversationId, text });
      }
      return out;
    },

    /** Waits for presence decisions in flight, then leaves: the agents only this node held go OFFLINE now. */
    async leave(): Promise<void> {
      await Promise.allSettled([...deciding]);
      if (!link.up) return;
      try {
        offline(await registry.leave(), 'websocket_disconnected');
      } catch (err) {
        log.warn({ err }, 'could not leave the cluster cleanly; the others notice within CLUSTER_NODE_TTL');
      }
    },

    async close(): Promise<void> {
      for (const timer of timers) clearInterval(timer);
      clearTimeout(settling);
      gate.stop();
      await link.close();
    },

    /** For readiness, metrics and inspection. */
    status(): { redis: 'up' | 'down'; reason?: string; nodes: typeof liveNodes; gate: GateState } {
      return { redis: link.up ? 'up' : 'down', ...(link.reason ? { reason: link.reason } : {}), nodes: liveNodes, gate: gate.state() };
    },

    /** How long this node has known of a commit it has not handed to its sockets yet (seconds). */
    behindSeconds: (): number => gate.behindMs() / 1000,

    /** Why readiness should say `degraded` (Redis away, or frames handed over late), if it should. */
    degraded(): string | undefined {
      if (!link.up)
        return `redis unreachable (${link.reason ?? 'reconnecting'}): serving this node's sockets, reading the other nodes' messages from the store`;
      const behind = gate.behindMs();
      if (behind > BEHIND_DEGRADED_MS) return `delivering ${(behind / 1000).toFixed(1)} s behind the commits: catching up from the store`;
      return undefined;
    },
  };
}

function redactedUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, (_, auth: string) => `//${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`);
}
