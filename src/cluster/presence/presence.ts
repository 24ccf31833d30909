// Presence across the nodes: an agent is ONLINE while any node holds a socket of it. Each node keeps
// its count of every agent in its own hash on Redis (registry.ts); a socket is counted before it is
// accepted (admit), the agent's first and last socket here are decided with the bus's order (decide),
// the hash is written whole again after an outage (register), dead nodes' agents go OFFLINE (reap),
// the leader sweeps agents the store shows ONLINE that no live node holds (reconcile), and what the
// bus did not bring while Redis was away is read back from the store (backfill.ts).
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { AddressReader } from '../../delivery/addressTable.js';
import type { Delivery, PresencePort, Principal } from '../../delivery/types.js';
import type { PresencePatch } from '../../store/batchWriter.js';
import type { ClusterRepo } from '../../store/repositories/cluster.js';
import type { RedisLink } from '../bus/redis.js';
import { createPresenceBackfill } from './backfill.js';
import { createOnlineView } from './online.js';
import { createRegistry, type Decision } from './registry.js';

export interface ClusterPresenceDeps {
  link: Pick<RedisLink, 'commands' | 'up'>;
  name: string;
  nodeId: string;
  nodeTtlMs: number;
  /** How often this node beats (its hash's TTL is one beat short of the node TTL). */
  beatMs: number;
  repo: Pick<ClusterRepo, 'onlineAgents' | 'agentPresenceSince'>;
  clock: Clock;
  log: Logger;
  /** After Redis is back, how long the other nodes may take to reconnect (ms). */
  settleMs: number;
}

/** What presence drives once the core exists. */
export interface PresenceParts {
  /** Queues a presence change in the pipeline. */
  presence(userId: number, patch: PresencePatch): void;
  /** This node's address table (read only): who it holds. */
  table: AddressReader;
  isLeader(): boolean;
  /** Hands frames to this node's endpoints (the router's DELIVER). */
  deliver(deliveries: Delivery[]): void;
  /** Runs one delivery round (sockets corked once). */
  round(fn: () => void): void;
}

export function createClusterPresence(deps: ClusterPresenceDeps) {
  const { link, clock, log, nodeTtlMs, repo } = deps;
  const registry = createRegistry({ redis: link.commands, name: deps.name, nodeId: deps.nodeId, ttlMs: nodeTtlMs - deps.beatMs });
  let parts: PresenceParts | undefined;
  const need = (): PresenceParts => {
    if (!parts) throw new Error('cluster presence was used before the core was attached');
    return parts;
  };
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
  /** Presence decisions waiting for Redis's answer (shutdown waits for them). */
  const deciding = new Set<Promise<void>>();
  const online = createOnlineView();
  const backfill = createPresenceBackfill({
    repo,
    clock,
    log,
    settleMs: deps.settleMs,
    hand(deliveries) {
      // As a batch from the bus would pass: the view first, then this node's sockets.
      online.note(deliveries);
      const { deliver, round } = need();
      round(() => deliver(deliveries));
    },
  });

  /** Registers this node's hash again at the next beat, which is now if none is running. */
  function registerAgain(): void {
    mustRegister = true;
    void heartbeat();
  }

  /** Whether this node holds a socket of the agent (bound, or admitted and about to open). */
  function holdsHere(userId: number): boolean {
    if (need().table.countOf(userId) > 0) return true;
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
        // One line per episode, not per agent: a Redis outage under many agents would write thousands.
        if (unsure.size === 0)
          log.warn({ err, userId }, 'an agent’s close got no answer from Redis: it, and any more until then, is decided once this node has registered again');
        else log.debug({ err, userId }, 'an agent’s close got no answer from Redis');
        unsure.add(userId);
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
    for (const endpoint of need().table.all) if (endpoint.user.role === 'AGENT') counts.set(endpoint.user.id, 1);
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

  return {
    heartbeat,
    get liveNodes() {
      return liveNodes;
    },

    /** Redis went away: the hash is written whole once it is back. */
    down(): void {
      mustRegister = true;
      lastOutageAt = performance.now();
      backfill.down();
    },
    /**
     * Redis is back: every node's last beat is old, so nobody is reaped before all had one; the
     * presence changes the bus did not bring are read from the store.
     */
    up(): void {
      reapNotBefore = performance.now() + nodeTtlMs;
      void heartbeat();
      if (parts) backfill.up();
    },

    /** Wires presence to the core; the store's ONLINE agents seed `isOnline`. */
    async attach(next: PresenceParts): Promise<void> {
      parts = next;
      online.seed(await repo.onlineAgents(Number.MAX_SAFE_INTEGER));
    },

    /** Keeps `isOnline` current from every PRESENCE that passes this node. */
    note(deliveries: readonly Delivery[]): void {
      online.note(deliveries);
      backfill.seen(deliveries);
    },
    /** Whether the store shows the agent ONLINE (any node holds it), as of the last PRESENCE seen. */
    isOnline: online.isOnline,
    /** How many agents this node sees ONLINE. */
    get onlineCount(): number {
      return online.count;
    },

    /** The router's presence port in cluster mode: an agent is ONLINE while any node holds it. */
    port: {
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

    /** Waits for presence decisions in flight, then leaves: the agents only this node held go OFFLINE now. */
    async leave(): Promise<void> {
      backfill.stop();
      await Promise.allSettled([...deciding]);
      if (!link.up) return;
      try {
        offline(await registry.leave(), 'websocket_disconnected');
      } catch (err) {
        log.warn({ err }, 'could not leave the cluster cleanly; the others notice within CLUSTER_NODE_TTL');
      }
    },
  };
}
export type ClusterPresence = ReturnType<typeof createClusterPresence>;
