// The core stage: the directory, the persist-then-deliver pipeline, the router actor, and what the
// features use to reach open sockets (live sessions) and replay missed messages.
import type { Logger } from 'pino';
import { createActor, type InspectionEvent } from 'xstate';
import { createLiveSessions } from '../actors/liveSessions.js';
import { routerMachine, type RouterActor } from '../actors/router.js';
import type { Clock } from '../clock.js';
import { createDirectory } from '../delivery/directory.js';
import { createPipelineMeter } from '../delivery/metrics.js';
import { createPipeline } from '../delivery/pipeline.js';
import { createPresenceTap } from '../delivery/presenceChanges.js';
import { createReplay } from '../delivery/replay.js';
import type { Delivery } from '../delivery/types.js';
import type { Metrics } from '../metrics/registry.js';
import type { AddressReader } from '../delivery/addressTable.js';
import { createPresenceLog } from '../services/statsPresence.js';
import type { Store } from '../store/db.js';
import type { WsMeter } from '../ws/metrics.js';
import { createSendBatch } from '../ws/sendBatch.js';
import { latePort } from './latePort.js';
import type { NodePorts } from './nodePorts.js';
import type { Repos } from './storage.js';

export interface CoreOptions {
  store: Store;
  repos: Repos;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  wsMeter: WsMeter;
  /** This node's ports (root/node.ts): where settled batches go, presence, admission, the bus. */
  ports: Pick<NodePorts, 'handoff' | 'presence' | 'admission' | 'bus'>;
  /** WRITE_QUEUE_MAX_BYTES: messages taken and not yet settled, hub-wide, at most (see the pipeline's `admit`). */
  writeQueueMaxBytes?: number;
  /** An inspector for the actor system the router roots (HubOptions.inspect); absent, none. */
  inspect?: (event: InspectionEvent) => void;
}

export function createCore(options: CoreOptions) {
  const { store, repos, clock, logger, metrics, wsMeter, ports } = options;
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
    handoff: ports.handoff,
    round: (fn) => sendBatch.run(fn),
    meter: createPipelineMeter(metrics.factory),
    maxQueuedBytes: options.writeQueueMaxBytes,
  });
  // Presence transitions are also kept in memory for the dashboard's online/offline strips.
  const presenceLog = createPresenceLog({ clock });
  const presence = presenceLog.observe(ports.presence((userId, patch) => pipeline.presence(userId, patch)));
  const router: RouterActor = createActor(routerMachine, { systemId: 'router', input: { meter: wsMeter, presence }, inspect: options.inspect });
  // Every delivery list reaches the router through here (this node's and, attached, the other nodes').
  const presenceChanges = createPresenceTap();
  const toRouter = (deliveries: Delivery[]) => {
    presenceChanges.note(deliveries);
    router.send({ type: 'DELIVER', deliveries });
  };
  deliver.connect(toRouter);
  router.subscribe({ error: (err) => logger.fatal({ err }, 'the router actor failed') });
  router.start();
  // Mutated in place by the router by design: one reference stays current.
  const addresses: AddressReader = router.getSnapshot().context.table;
  return {
    directory,
    sendBatch,
    pipeline,
    router,
    /** Hands a delivery list to the router (a cluster node hands the other nodes' lists here). */
    deliver: toRouter,
    /** Told when agents' presence changes, on this node or another (presenceChanges.ts). */
    presenceChanges: { onChange: presenceChanges.onChange },
    /** Who is connected where on this node (the router's table, read only). */
    addresses,
    presenceLog,
    sessions: createLiveSessions(router, directory, ports.bus),
    /** The admission of sockets (see ws/upgrade.ts); absent where a socket counts once it binds. */
    admission: ports.admission,
    replay: createReplay({ messages: repos.messages, meter: wsMeter }),
  };
}
export type Core = ReturnType<typeof createCore>;
