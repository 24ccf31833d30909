// The A2A feature as the hub builds it: the cards, the task store on the hub's store, the executor
// that turns tasks into chat and answers back into tasks, the SDK's request handler over them, and
// the JSON-RPC endpoint the HTTP edge drives.
import { AgentCard } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.js';
import type { Bus } from '../delivery/bus.js';
import type { A2aPushConfigsRepo } from '../store/repositories/a2aPushConfigs.js';
import type { A2aTasksRepo } from '../store/repositories/a2aTasks.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import type { UsersRepo } from '../store/repositories/users.js';
import { butlerCard } from './cards.js';
import { createCardService } from './cardService.js';
import { createClusterBusManager } from './clusterTasks.js';
import { createA2aEndpoint } from './endpoint.js';
import type { A2aMeter } from './metrics.js';
import { createHubExecutor, type ExecutorDeps } from './executor.js';
import { createReplyTracker, type RouterPort } from './replies.js';
import { createPushSender } from './pushSender.js';
import { createOpenTaskLimit, LimitedRequestHandler } from './openTasks.js';
import { createHubPushStore, type CredentialBox } from './pushStore.js';
import { createConversationMemo, createHubTaskStore, TERMINAL_STATES } from './taskStore.js';
import { webhookDispatcher } from './webhookGuard.js';

/** Push notifications: one call's deadline, calls per event, and the first wait before another. */
const PUSH_TIMEOUT_MS = 5000;
const PUSH_ATTEMPTS = 4;
const PUSH_BACKOFF_MS = 500;

export interface A2aDeps {
  users: Pick<UsersRepo, 'findByUsername' | 'list'>;
  threads: Pick<ThreadsRepo, 'insert'>;
  tasks: A2aTasksRepo;
  pushConfigs: A2aPushConfigsRepo;
  /** A2A_ALLOW_PRIVATE_NETWORK: webhooks may be on private and loopback addresses. */
  allowPrivateNetwork: boolean;
  /** Seals the webhooks' credentials at rest (its own purpose key). */
  pushBox: CredentialBox;
  /** A2A_MAX_OPEN_TASKS: tasks one caller may have open at once. */
  maxOpenTasks: number;
  pipeline: ExecutorDeps['pipeline'];
  router: RouterPort;
  /** The cluster bus: a task's events reach subscribers on other nodes (alone on a single node). */
  bus: Bus;
  meter: A2aMeter;
  clock: Clock;
  /** The hub's timers (the waits between push-notification calls). */
  timers: Timers;
  logger: Logger;
}

export function createA2a(deps: A2aDeps) {
  const cards = createCardService({ users: deps.users, pushNotifications: true });
  const conversations = createConversationMemo();
  const openTasks = createOpenTaskLimit({ tasks: deps.tasks, max: deps.maxOpenTasks, ended: [...TERMINAL_STATES] });
  const taskStore = createHubTaskStore({ tasks: deps.tasks, clock: deps.clock, conversations, onStored: (context) => openTasks.stored(context) });
  const replies = createReplyTracker({ router: deps.router });
  const buses = createClusterBusManager({ bus: deps.bus, onCancel: (taskId) => executor.cancelHere(taskId) });
  const executor = createHubExecutor({
    cancelElsewhere: (taskId) => buses.cancelElsewhere(taskId),
    meter: deps.meter,
    pipeline: deps.pipeline,
    replies,
    threads: deps.threads,
    conversationOf: (contextId, context) => taskStore.conversationOf(contextId, context),
    conversations,
    clock: deps.clock,
    logger: deps.logger,
  });
  // One handler for every agent: what differs per agent (its card, its scope) rides the call context.
  // Its own card only answers capability checks, which every agent's card shares.
  const capabilities = AgentCard.fromJSON(butlerCard('hub', { origin: 'http://localhost', pushNotifications: true }));
  const pushStore = createHubPushStore({
    configs: deps.pushConfigs,
    clock: deps.clock,
    allowPrivate: deps.allowPrivateNetwork,
    box: deps.pushBox,
    logger: deps.logger,
  });
  const dispatcher = webhookDispatcher(deps.allowPrivateNetwork, PUSH_TIMEOUT_MS);
  const pushSender = createPushSender({
    load: (taskId, context) => pushStore.loadWithMetadata(taskId, context),
    dispatcher,
    logger: deps.logger,
    timeoutMs: PUSH_TIMEOUT_MS,
    attempts: PUSH_ATTEMPTS,
    backoffMs: PUSH_BACKOFF_MS,
    timers: deps.timers,
  });
  const handler = new LimitedRequestHandler(openTasks, capabilities, taskStore, executor, buses, pushStore, pushSender);
  return {
    cards,
    replies,
    endpoint: createA2aEndpoint({ cards, handler, meter: deps.meter }),
    /** At start: seals the webhook configs stored before their credentials were sealed. */
    async start(): Promise<void> {
      const sealed = await pushStore.sealLegacy();
      if (sealed > 0) deps.logger.info({ configs: sealed }, 'sealed the credentials of A2A webhook configs stored in plain text before');
    },
  };
}
export type A2a = ReturnType<typeof createA2a>;
