// startTestHub: a real hub in-process on a free port, with its own database (a temporary SQLite file
// unless a PostgreSQL URL is given), a scripted fake model for Butler and a fake chat platform (both
// small loopback servers speaking the real protocols), simulated timers, and helpers: connected
// clients with frame expectations, the actors' snapshots, an opt-in transition trace, quiesce.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ActorRefLike, InspectionEvent } from 'xstate';
import { conversationActorId } from '../butler/inspection.js';
import { createRestClient, HubClient, type UserView } from '../client/index.js';
import { parseConfig } from '../config.js';
import { startHub, type Hub, type HubOptions } from '../hub.js';
import { createLogger } from '../logger.js';
import { connectionActorId } from '../ops/inspectionSources.js';
import { createTestActors, type TestActors } from './actors.js';
import { toMs, type Duration } from './duration.js';
import { startFakeModel, type FakeModel } from './fakeModel.js';
import { FAKE_BOT_OPEN_ID, messageEvent, startFakePlatform, type FakePlatform, type MessageEventInput } from './fakePlatform.js';
import { createSimulatedTimers } from './simulatedTimers.js';
import { attachProbe, type FrameProbe } from './probe.js';
import { createTracer, type TraceEntry } from './trace.js';

export interface TestHubOptions {
  /** A PostgreSQL database for this hub (it is migrated; use one meant for tests). Default: a temporary SQLite file. */
  databaseUrl?: string;
  /** Records the actors' events and transitions (hub.trace(), and printed by failing expectations). Default off. */
  trace?: boolean;
  /** More hub settings, as the environment would give them: `{ BUTLER_AUTH_TIMEOUT: '10m' }`. */
  env?: Record<string, string>;
  /** Butler answers through the scripted fake model (default); false runs Butler in safe mode. */
  model?: boolean;
}

/** A registered user's connected client, with what it received and expectations on it. */
export type TestClient = HubClient & FrameProbe & { readonly id: number; readonly username: string; readonly token: string };

export interface TestPlatform extends FakePlatform {
  /** Creates, verifies and enables a connector for the fake platform's app; resolves once its long connection is up. */
  connect(options?: { allowedChatIds?: string[] }): Promise<{ connectorId: number }>;
  /** A user's text message in a platform chat; resolves with its message id once the hub acknowledged it. */
  message(input: MessageEventInput): Promise<string>;
  readonly botOpenId: string;
}

export interface TestHub {
  readonly url: string;
  readonly port: number;
  /** The hub itself (store, router, pipeline, Butler, connector), for what the helpers do not cover. */
  readonly hub: Hub;
  /** The REST client of the hub's admin. */
  readonly admin: ReturnType<typeof createRestClient>;
  readonly adminToken: string;
  /** Butler's user. */
  readonly butler: UserView;
  /** Butler's language model: enqueue replies (`textReply`, tool calls), read the requests. */
  readonly model: FakeModel;
  readonly platform: TestPlatform;
  /** The hub's log lines, parsed. */
  readonly logs: Array<Record<string, unknown>>;
  readonly actors: TestActors;
  readonly clock: {
    /** The hub's time, in epoch milliseconds. */
    now(): number;
    /** Moves the hub's timers forward ('10m', '30s', or milliseconds) and waits for what they started. */
    advance(duration: Duration): Promise<void>;
  };
  /** Registers an agent and connects it. */
  agent(name: string): Promise<TestClient>;
  /** Creates a human (a MEMBER unless `role` says ADMIN) and connects them. */
  human(name: string, options?: { role?: 'MEMBER' | 'ADMIN' }): Promise<TestClient>;
  /** Resolves when the commit queue is empty and every delivery made. */
  quiesce(): Promise<void>;
  /** The recorded trace (throws unless the hub was started with `trace: true`), of one actor or all. */
  trace(filter?: { actor?: string | RegExp }): TraceEntry[];
  /** The trace's last entries and the actors' states, as text ('' without a trace). */
  explain(options?: { last?: number }): string;
  /** Closes the clients, stops the hub and the fakes, and removes the temporary database. */
  stop(): Promise<void>;
}

const ADMIN = { username: 'admin', password: 'admin-password' };
const PASSWORD = 'test-password';
const APP = { id: 'cli_7e57c0de7e57c0de', secret: 'test-kit-app-secret' };
const EXPLAIN_LAST = 60;

export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  const cleanup: Array<() => Promise<void> | void> = [];
  const runCleanup = async () => {
    for (const step of cleanup.splice(0).reverse()) await Promise.resolve(step()).catch(() => undefined);
  };
  try {
    return await start(options, cleanup, runCleanup);
  } catch (err) {
    await runCleanup();
    throw err;
  }
}

async function start(options: TestHubOptions, cleanup: Array<() => Promise<void> | void>, runCleanup: () => Promise<void>): Promise<TestHub> {
  const model = await startFakeModel();
  cleanup.push(() => model.close());
  const fake = await startFakePlatform();
  cleanup.push(() => fake.close());
  fake.registerApp(APP.id, APP.secret);

  let db: Record<string, string>;
  if (options.databaseUrl) db = { DB_DRIVER: 'postgres', DATABASE_URL: options.databaseUrl };
  else {
    const dir = mkdtempSync(join(tmpdir(), 'agent-hub-test-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    db = { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'hub.db') };
  }
  const config = parseConfig({
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: '0',
    JWT_SECRET: 'a-test-hub-secret-of-at-least-32-characters',
    INITIAL_ADMIN_USER: ADMIN.username,
    INITIAL_ADMIN_PASS: ADMIN.password,
    LOG_LEVEL: 'info',
    WEB_DIR: '',
    CHATPLATFORM_BASE_URL: fake.url,
    CHATPLATFORM_WS_ENABLED: 'true',
    CHATPLATFORM_TIMEOUT_MS: '3000',
    ...(options.model === false ? {} : { BUTLER_BASE_URL: model.baseUrl, BUTLER_MODEL: 'fake-model', BUTLER_API_TOKEN: 'fake-model-key' }),
    ...db,
    ...options.env,
  });

  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });

  const timers = createSimulatedTimers();
  const activity = new Set<() => void>();
  // The trace names actors from the hub's tables, which exist once startHub returns (its first events come before).
  const started: { hub?: Hub } = {};
  const nameOf = (ref: ActorRefLike): string | undefined => {
    const { hub } = started;
    if (!hub) return undefined;
    if (ref === hub.router) return 'router';
    if (ref === hub.butler.actor) return 'butler';
    for (const [key, actor] of hub.connections) if (actor === ref) return connectionActorId(key);
    for (const [key, actor] of hub.butler.actor.getSnapshot().context.conversations) if (actor === ref) return conversationActorId(key);
    return undefined;
  };
  const tracer = options.trace ? createTracer({ now: () => timers.now(), nameOf }) : undefined;
  const inspect = (event: InspectionEvent) => {
    tracer?.inspect(event);
    if (event.type === '@xstate.snapshot') for (const listener of [...activity]) listener();
  };

  // The hub's timers (expiries, idle timeouts, retention) and its timestamps run on the kit's clock.
  const hubOptions: HubOptions = { config, logger: createLogger(config.logLevel, sink), passwordCost: 1024, timers, inspect };
  const running = await startHub(hubOptions);
  started.hub = running;
  cleanup.push(() => running.stop());
  const url = `http://127.0.0.1:${running.port}`;

  const anonymous = createRestClient({ url, token: '' });
  const adminToken = (await anonymous.login(ADMIN.username, ADMIN.password)).token;
  const admin = createRestClient({ url, token: adminToken });
  const butler = await admin.agents.butler();

  const explain = ({ last = EXPLAIN_LAST } = {}): string => {
    if (!tracer) return '';
    const entries = tracer.entries();
    const shown = entries.slice(-last);
    const states = actors
      .list()
      .map((a) => `  ${a.id} (${a.kind}): ${a.state}`)
      .join('\n');
    return [
      `actor trace (${shown.length < entries.length ? `the last ${shown.length} of ${entries.length + tracer.dropped}` : `${entries.length}`} entries):`,
      tracer.format(shown) || '  (empty)',
      'actors now:',
      states,
    ].join('\n');
  };
  const actors = createTestActors({
    inspection: () => running.inspection,
    onActivity: (listener) => {
      activity.add(listener);
      return () => activity.delete(listener);
    },
    explain,
  });

  const clients = new Set<HubClient>();
  cleanup.push(async () => {
    await Promise.all([...clients].map((c) => c.close().catch(() => undefined)));
  });
  async function connect(token: string, user: { id: number; username: string }): Promise<TestClient> {
    const client = new HubClient({ url, token });
    clients.add(client);
    const probe = attachProbe(client, { name: user.username, explain });
    await client.connect();
    return Object.assign(client, probe, { id: user.id, username: user.username, token });
  }

  async function quiesce(): Promise<void> {
    // A delivery can queue another write (Butler's answer, the connector's post): settle until still.
    for (let i = 0; i < 2; i++) {
      await running.pipeline.drain();
      await running.connector.settled();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  const platform = Object.assign(fake, {
    botOpenId: FAKE_BOT_OPEN_ID,
    async connect(connectOptions: { allowedChatIds?: string[] } = {}) {
      const created = await admin.connector.create({ app_id: APP.id, app_secret: APP.secret, allowed_chat_ids: connectOptions.allowedChatIds ?? [] });
      const verified = await admin.connector.verify(created.id);
      if (!verified.ok) throw new Error(`the fake platform refused the connector: ${JSON.stringify(verified)}`);
      await admin.connector.enable(created.id, true);
      await fake.waitForConnections(1);
      await actors.waitFor('connector', { state: 'enabled', context: { connection: 'connected' } }, { timeout: 10_000 });
      return { connectorId: created.id };
    },
    async message(input: MessageEventInput) {
      const id = fake.pushEvent(messageEvent(input, APP.id));
      await fake.waitForAck(id);
      await running.connector.settled();
      return id;
    },
  }) as TestPlatform;

  return {
    url,
    port: running.port,
    hub: running,
    admin,
    adminToken,
    butler,
    model,
    platform,
    logs,
    actors,
    clock: {
      now: () => timers.now(),
      async advance(duration) {
        await timers.advance(toMs(duration, 'clock.advance'));
        await quiesce();
      },
    },
    async agent(name) {
      const created = await admin.agents.register({ username: name });
      // Only a remote A2A agent comes back without a token, and the kit registers none.
      if (!created.api_token) throw new Error(`registering agent ${name} gave no api_token`);
      return connect(created.api_token, { id: created.id, username: name });
    },
    async human(name, humanOptions = {}) {
      const created = await admin.users.create({ username: name, password: PASSWORD, role: humanOptions.role ?? 'MEMBER' });
      const { token } = await anonymous.login(name, PASSWORD);
      return connect(token, { id: created.id, username: name });
    },
    quiesce,
    trace(filter) {
      if (!tracer) throw new Error('the hub records no trace: start it with startTestHub({ trace: true })');
      return tracer.entries(filter);
    },
    explain,
    stop: runCleanup,
  };
}
