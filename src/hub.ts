// Composition of one hub: config → store → migrations → bootstrap → services → app → listen,
// and the reverse on stop. main.ts runs it for real; tests run it in-process on port 0.
import type { Logger } from 'pino';
import uWS from 'uWebSockets.js';
import type { Config } from './config.js';
import { createApp } from './http/app.js';
import { createRequestGate } from './http/requestGate.js';
import { listen } from './server.js';
import { createAgentsService } from './services/agents.js';
import { createTokenVault } from './services/agentTokens.js';
import { createAuthService } from './services/auth.js';
import { bootstrap } from './services/bootstrap.js';
import { createChatService } from './services/chat.js';
import { systemClock, type Clock } from './services/clock.js';
import { createDevMockService } from './services/devMock.js';
import { createJwtIssuer } from './services/jwt.js';
import { createLoginThrottle } from './services/loginThrottle.js';
import { createMessagesService } from './services/messages.js';
import { createPasswordHasher } from './services/passwords.js';
import { createPresenceService } from './services/presence.js';
import { developmentSecret } from './services/secrets.js';
import { createUsersService } from './services/users.js';
import { openStore, type Store } from './store/db.js';
import { migrate } from './store/migrate.js';
import { createChatRepo } from './store/repositories/chat.js';
import { createCredentialsRepo } from './store/repositories/credentials.js';
import { createMessagesRepo } from './store/repositories/messages.js';
import { createThreadsRepo } from './store/repositories/threads.js';
import { createUsersRepo } from './store/repositories/users.js';

export interface HubOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** scrypt cost; tests lower it to keep the suite fast. */
  passwordCost?: number;
  migrationsDir?: string;
  drainTimeoutMs?: number;
}

export interface Hub {
  readonly port: number;
  readonly store: Store;
  /** HTTP requests being served right now. */
  inFlightRequests(): number;
  stop(): Promise<void>;
}

/** How long shutdown waits for requests in flight before it closes connections anyway. */
const DRAIN_TIMEOUT_MS = 10_000;

/** Repositories and services over one store; `initialise` bootstraps an empty database. */
function createServices(store: Store, options: HubOptions, clock: Clock, jwtSecret: string) {
  const { config, logger } = options;
  const db = store.db;
  const users = createUsersRepo(db);
  const credentials = createCredentialsRepo(db);
  const messages = createMessagesRepo(db);
  const passwords = createPasswordHasher({ cost: options.passwordCost });
  const vault = createTokenVault(config.auth.tokenSecret ?? jwtSecret);
  const jwt = createJwtIssuer(jwtSecret, config.auth.jwtExpiresInSeconds);
  const presence = createPresenceService({ users, clock });

  const initialise = async () => {
    if (await bootstrap({ db, users, credentials, passwords, vault, clock, admin: config.auth.initialAdmin })) {
      logger.info({ admin: config.auth.initialAdmin.username }, 'empty database: created the admin (id 1) and Butler (id 2)');
    }
    await presence.hubStarted();
  };

  const usersService = createUsersService({ db, users, credentials, passwords, clock });
  const services = {
    users: usersService,
    auth: createAuthService({
      users,
      credentials,
      passwords,
      jwt,
      vault,
      usersService,
      throttle: createLoginThrottle({ maxFailures: config.auth.loginMaxFailures, windowSeconds: config.auth.loginFailureWindowSeconds }),
      allowSelfRegistration: config.auth.allowSelfRegistration,
    }),
    agents: createAgentsService({ db, users, credentials, vault, clock }),
    messages: createMessagesService({ messages, users, clock }),
    devMock: createDevMockService({ store, users, messages, clock, reinitialise: initialise }),
    chat: createChatService({ users, threads: createThreadsRepo(db), chat: createChatRepo(db), clock }),
  };
  return { services, presence, initialise };
}

export async function startHub(options: HubOptions): Promise<Hub> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const jwtSecret = config.auth.jwtSecret ?? developmentSecret(config.dataDir);

  const store = openStore(config.db);
  const uwsApp = uWS.App();
  try {
    const applied = await migrate(store, { dir: options.migrationsDir, logger });
    logger.info({ driver: store.driver, applied: applied.length }, 'store ready');
    const { services, presence, initialise } = createServices(store, options, clock, jwtSecret);
    await initialise();

    const gate = createRequestGate();
    const app = createApp({
      uwsApp,
      gate,
      logger,
      isProduction: config.isProduction,
      corsOrigins: config.http.corsOrigins,
      bodyLimitBytes: config.http.bodyLimitBytes,
      services,
    });
    const listener = await listen(app, config.server.host, config.server.port);

    let stopping: Promise<void> | undefined;
    const stop = async () => {
      // Fixed order: stop accepting → let requests in flight finish → record the hub's own presence
      // → close connections → close the store.
      listener.stopAccepting();
      if (!(await gate.close(options.drainTimeoutMs ?? DRAIN_TIMEOUT_MS))) {
        logger.warn({ inFlight: gate.inFlight }, 'requests still in flight after the drain timeout; closing anyway');
      }
      await presence.hubStopping().catch((err: unknown) => logger.warn({ err }, 'could not record Butler going offline'));
      // uWS flushes a corked response when the current callback returns; close only after that.
      await new Promise((resolve) => setImmediate(resolve));
      uwsApp.close();
      await store.close();
    };
    return {
      port: listener.port,
      store,
      inFlightRequests: () => gate.inFlight,
      stop: () => (stopping ??= stop()),
    };
  } catch (err) {
    uwsApp.close();
    await store.close().catch(() => undefined);
    throw err;
  }
}
