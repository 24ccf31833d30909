// The node's ports as the composition root sees them (built in root/node.ts): the bus, the leadership,
// the ledger, presence, and where settled batches go. Types only, so that the core, the cluster
// stage and the builder share them without importing each other.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AddressReader } from '../delivery/addressTable.js';
import type { Bus } from '../delivery/bus.js';
import type { Handoff } from '../delivery/deliver.js';
import type { Leadership } from '../delivery/leadership.js';
import type { Ledger } from '../delivery/ledger.js';
import type { OnlineAgents } from '../delivery/presence.js';
import type { Delivery, PresencePort } from '../delivery/types.js';
import type { Metrics } from '../metrics/registry.js';
import type { Inspection } from '../ops/inspection.js';
import type { Shutdown } from '../shutdown.js';
import type { PresencePatch } from '../store/batchWriter.js';
import type { Admission } from '../ws/upgrade.js';
import type { Repos } from './storage.js';

/** What the ports drive once the core exists. */
export interface NodeCore {
  deliver(deliveries: Delivery[]): void;
  round(fn: () => void): void;
  /** Queues a presence change in the pipeline. */
  presence(userId: number, patch: PresencePatch): void;
  addresses: AddressReader;
  settled(): Promise<void>;
  inspection: Inspection;
}

export interface NodePorts {
  bus: Bus;
  leadership: Leadership;
  /** A ledger by name (each feature names its own). */
  ledger(name: string): Ledger;
  /** The router's presence port, given how a change is queued in the pipeline. */
  presence(queue: (userId: number, patch: PresencePatch) => void): PresencePort;
  /** Whether an agent is ONLINE on any node, given this node's address table. */
  online(addresses: AddressReader): OnlineAgents;
  /** Where settled batches go (default: handed to this node's sockets at once). */
  handoff?: (batch: Handoff) => void;
  /** Counts a socket before it is accepted (absent: a socket counts once it binds). */
  admission?: Admission;
  /** Other nodes hold agents too: the hub's own start and stop leave agents' presence alone. */
  sharedPresence: boolean;
  /** Redis commands for the login throttle's shared budgets (absent: budgets in memory). */
  redis?: Redis;
  /** The ids restarted (development reset): the order of committed batches starts over here. */
  restartOrder(): void;
  /** Starts what runs against the core (ordering, beating) once it exists; see `attachNode`. */
  attach(core: NodeCore): Promise<void>;
  /** Why readiness should say `degraded`, if it should. */
  degraded(): string | undefined;
}

export interface NodePortsOptions {
  config: Config;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  jwtSecret: string;
  /** Cluster mode adds its steps (leave, release the lease, close the link). */
  shutdown: Pick<Shutdown<'close the cluster link' | 'leave the cluster' | 'release the lease'>, 'add'>;
}
