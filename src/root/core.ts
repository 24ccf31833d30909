// The core stage: the directory, the persist-then-deliver pipeline, the router actor, and what the
// features use to reach open sockets (live sessions) and replay missed messages.
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import { createLiveSessions } from '../actors/liveSessions.js';
import { routerMachine } from '../actors/router.js';
import type { Clock } from '../clock.js';
import { createDirectory } from '../delivery/directory.js';
import { createPipelineMeter } from '../delivery/metrics.js';
import { createPipeline } from '../delivery/pipeline.js';
import { socketPresence } from '../delivery/presence.js';
import { createReplay } from '../delivery/replay.js';
import type { Handoff } from '../delivery/deliver.js';
import type { Delivery, PresencePort } from '../delivery/types.js';
import type { Metrics } from '../metrics/registry.js';
import { createPresenceLog } from '../services/statsPresence.js';
import type { Store } from '../store/db.js';
import type { Admission } from '../ws/upgrade.js';
import type { WsMeter } from '../ws/metrics.js';
import { createSendBatch } from '../ws/sendBatch.js';
import { latePort } from './latePort.js';
import type { Repos } from './storage.js';

export type RouterActor = ReturnType<typeof createActor<typeof routerMachine>>;

/** Cluster mode's seams into the core (see cluster/node.ts), and the admission of sockets; absent on a single node. */
export interface CoreCluster extends Admission {
  /** Settled batches: published to the other nodes and handed over in the visibility order. */
  handoff(batch: Handoff): void;
  /** Presence decided with the other nodes (an agent is ONLINE while any node holds it). */
  presence: PresencePort;
  /** Tells the other nodes to close a user's sockets, or everyone's. */
  closeUser(userId: number, code: number, reason: string): void;
  closeAll(code: number, reason: string): void;
}

export interface CoreOptions {
  store: Store;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  wsMeter: WsMeter;
  cluster?: CoreCluster;
  /** WRITE_QUEUE_MAX_BYTES: messages taken and not yet settled, hub-wide, at most (see the pipeline's `admit`). */
  writeQueueMaxBytes?: number;
}

export function createCore(options: CoreOptions) {
  const { store, repos, clock, logger, metrics, wsMeter, cluster } = options;
  const directory = createDirectory({ users: repos.users });
  const sendBatch = createSendBatch();
  const deliver = latePort<[deliveries: Delivery[]]>("the pipeline's delivery to the router");
  const pipeline = createPipeline({
    store,
    threads: repos.threads,
    chat: repos.chat,
    directory,
    clock,
    logger,
    deliver: deliver.call,
    handoff: cluster?.handoff,
    round: (fn) => sendBatch.run(fn),
    meter: createPipelineMeter(metrics.factory),
    maxQueuedBytes: options.writeQueueMaxBytes,
  });
  // Presence transitions are also kept in memory for the dashboard's online/offline strips.
  const presenceLog = createPresenceLog({ clock });
  const presence = presenceLog.observe(cluster?.presence ?? socketPresence({ presence: (userId, patch) => pipeline.presence(userId, patch), clock }));
  const router: RouterActor = createActor(routerMachine, { systemId: 'router', input: { meter: wsMeter, presence } });
  deliver.connect((deliveries) => router.send({ type: 'DELIVER', deliveries }));
  router.subscribe({ error: (err) => logger.fatal({ err }, 'the router actor failed') });
  router.start();
  /** Cluster mode's admission of sockets (see ws/upgrade.ts); absent on a single node. */
  const admission: Admission | undefined = cluster;
  return {
    directory,
    sendBatch,
    pipeline,
    router,
    presenceLog,
    sessions: createLiveSessions(router, directory, cluster),
    admission,
    replay: createReplay({ messages: repos.messages, meter: wsMeter }),
  };
}
export type Core = ReturnType<typeof createCore>;
