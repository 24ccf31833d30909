// The chat-platform connector, composed: lifecycle service (HTTP), runtime (live connection, inbound,
// outbound) and platform identities, over their repositories. The hub starts it after bootstrap,
// reloads it after a dev reset and stops it before the router.
//
// The feature lives in this folder: machine.ts (lifecycle), service.ts, runtime.ts, longConnection.ts,
// inboundFilter.ts, outboundQueue.ts, platformApi.ts, identities.ts, views.ts, log.ts, metrics.ts.
// Two parts stay outside on purpose: its wire shapes in src/protocol/connector.ts, because the published
// client (src/client) and the dashboard (web/) import them and must never import server code; and its
// routes in src/http/routes/connector.ts, the HTTP edge.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ConnectorMeter } from './metrics.js';
import type { RouterRef } from '../actors/connection.js';
import { createConnectorsRepo } from '../store/repositories/connectors.js';
import { createPlatformIdentitiesRepo } from '../store/repositories/platformIdentities.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Database } from '../store/schema.js';
import type { Clock, Timers } from '../clock.js';
import type { Bus } from '../delivery/bus.js';
import type { Leadership } from '../delivery/leadership.js';
import type { Pipeline } from '../delivery/pipeline.js';
import { createSecretBox } from '../auth/secrets.js';
import { announceChange, followChanges } from './changes.js';
import { createConnectorLog } from './log.js';
import { createPlatformIdentities } from './identities.js';
import { createConnectorRuntime, type PlatformSettings } from './runtime.js';
import { createConnectorService } from './service.js';
import { createConnectorCodec } from './views.js';

export interface ConnectorDeps {
  db: Kysely<Database>;
  users: UsersRepo;
  threads: ThreadsRepo;
  pipeline: Pipeline;
  router: RouterRef;
  clock: Clock;
  /** The hub's timers (send retries, the send-rate window, the long connection's backoff). */
  timers: Timers;
  logger: Logger;
  platform: PlatformSettings;
  /** The hub's key material for secrets at rest (TOKEN_SECRET, else the JWT secret). */
  secret: string;
  meter?: ConnectorMeter;
  /**
   * The platform connection runs where the hub leads (a single node always does). A change made on
   * a node that does not lead is stored there and announced on the bus (connector/changes.ts); the
   * leader reloads the connector from the store.
   */
  leadership: Pick<Leadership, 'isLeader'>;
  bus: Bus;
}

export function createConnector(deps: ConnectorDeps) {
  const logger = deps.logger.child({ component: 'connector' });
  const repo = createConnectorsRepo(deps.db);
  const log = createConnectorLog({ repo, clock: deps.clock, logger, meter: deps.meter });
  const identities = createPlatformIdentities({
    db: deps.db,
    users: deps.users,
    threads: deps.threads,
    identities: createPlatformIdentitiesRepo(deps.db),
    clock: deps.clock,
  });
  const codec = createConnectorCodec(createSecretBox(deps.secret, 'connector-secret-encryption'), (connectorId, field) =>
    logger.warn({ connectorId, field }, 'a stored connector secret cannot be decrypted with the current key; enter it again'),
  );
  const runtime = createConnectorRuntime({
    platform: deps.platform,
    logger,
    log,
    identities,
    users: deps.users,
    pipeline: deps.pipeline,
    router: deps.router,
    timers: deps.timers,
  });
  const { leadership, bus } = deps;
  // What the service starts and stops: here on the leader (a single node always is), else the leader is told.
  const serviceRuntime: typeof runtime = {
    ...runtime,
    start: (config) => (leadership.isLeader() ? runtime.start(config) : announceChange(bus)),
    stop: (connectorId) => (leadership.isLeader() ? runtime.stop(connectorId) : announceChange(bus)),
    reconfigure: (config) => (leadership.isLeader() ? runtime.reconfigure(config) : announceChange(bus)),
  };
  const service = createConnectorService({ repo, codec, log, runtime: serviceRuntime, clock: deps.clock });

  /** Binds the platform identities and runs the current connector if it is enabled. */
  async function start(): Promise<void> {
    await runtime.init();
    const row = await repo.current();
    if (row?.state === 'enabled') {
      const config = codec.decode(row);
      runtime.start(config);
      await log.write(config.id, 'INFO', 'started', 'hub started with this connector enabled');
    }
  }

  async function reload(): Promise<void> {
    runtime.shutdown();
    await start();
  }
  followChanges({ bus, leadership, reload, log: logger });

  return {
    service,
    /** For Butler: whether a hub user stands for a chat-platform user (its commands come from there). */
    isPlatformIdentity: (userId: number) => identities.isIdentity(userId),
    start,
    /** After a dev reset wiped the tables (or another node changed it): drop everything live and start over. */
    reload,
    stop(): void {
      runtime.shutdown();
    },
    /**
     * Where platform events enter (the long connection calls it): `event` as the SDK hands over an
     * `im.message.receive_v1`. Dropped and logged unless that connector is the enabled one.
     */
    receive: (connectorId: number, event: unknown) => runtime.receive(connectorId, event),
    /** What runs now (the enabled connector, its connection and queue), for actor inspection. */
    status: () => runtime.status(),
    /** Resolves once inbound events received so far are handled. */
    settled: () => runtime.settled(),
  };
}
export type Connector = ReturnType<typeof createConnector>;
