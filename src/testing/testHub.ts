// startTestHub: a real hub in-process on a free port (or a cluster of nodes in this process, on a
// PostgreSQL database and a Redis), with its own database (a temporary SQLite file unless a PostgreSQL
// URL is given), a scripted fake model for Butler and a fake chat platform (both
// small loopback servers speaking the real protocols), simulated timers, and helpers: connected
// clients with frame expectations, the actors' snapshots, an opt-in transition trace, quiesce.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ActorRefLike, InspectionEvent } from 'xstate';
import { conversationActorId } from '../butler/inspection.js';
import { createRestClient, HubClient, type UserView } from '../client/index.js';
import { parseConfig } from '../config.js';
import { startHub, type Hub } from '../hub.js';
import { createLogger } from '../logger.js';
import { connectionActorId } from '../ops/inspectionSources.js';
import { createTestActors, type ActorSource, type TestActors } from './actors.js';
import { toMs, type Duration } from './duration.js';
import { startFakeModel, type FakeModel } from './fakeModel.js';
import { FAKE_BOT_OPEN_ID, messageEvent, startFakePlatform, type FakePlatform, type MessageEventInput } from './fakePlatform.js';
import { startFront, type Front } from './front.js';
import { createSimulatedTimers } from './simulatedTimers.js';
import { attachProbe, type FrameProbe } from './probe.js';
import { createTracer, type TraceEntry } from './trace.js';

export interface TestHubOptions {
  /** A PostgreSQL database for this hub (it is migrated; use one meant for tests). Default: a temporary SQLite file. */
  databaseUrl?: string;
  /** A SQLite file of yours for this hub (created and migrated if new; kept by `stop`), instead of a temporary one. */
  databasePath?: string;
  /**
   * A cluster of this many nodes in this process (default 1), on `databaseUrl` and `redisUrl`: cluster mode
   * needs both. Each node has its own address; a client of a stopped node reconnects to another one.
   */
  nodes?: number;
  /** The Redis of cluster mode (`redis://…`): the nodes' keys and channels there carry a name of their own. */
  redisUrl?: string;
  /** Records the actors' events and transitions (hub.trace(), and printed by failing expectations). Default off. */
  trace?: boolean;
  /** More hub settings, as the environment would give them: `{ BUTLER_AUTH_TIMEOUT: '10m' }`. */
  env?: Record<string, string>;
  /** Butler answers through the scripted fake model (default); false runs Butler in safe mode. */
  model?: boolean;
  /** The hub talks to the fake chat platform (default); false leaves its CHATPLATFORM_* settings alone and `hub.platform` unavailable. */
  platform?: boolean;
  /** The hub's timers: 'simulated' (default) move only with `hub.clock.advance`; 'real' run on real time. */
  clock?: 'simulated' | 'real';
  /** Called with each of the hub's log lines as it is written, parsed (the same lines as `hub.logs`). */
  onLog?: (line: Record<string, unknown>) => void;
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

/** Which node a client connects to (0-based index into `hub.nodes`; default 0). */
export interface NodeChoice {
  node?: number;
}

/** One node of the hub: the only one, or one of a cluster's. */
export interface TestNode {
  readonly index: number;
  /** NODE_ID in a cluster (`n1`, `n2`, …); `n1` for a single hub. */
  readonly id: string;
  /**
   * Where this node's clients connect: an address of the kit's in front of the node. While the node runs it
   * reaches the node (a restarted one on its new port too), once it is stopped the next running node of a
   * cluster (as a load balancer would).
   */
  readonly url: string;
  /** The running hub of this node (its last one once stopped). */
  readonly hub: Hub;
  readonly running: boolean;
  /** This node's actors. */
  readonly actors: TestActors;
  /** Whether this node holds the cluster's lease (runs Butler, approval expiry, the connector); a single hub always does. */
  isLeader(): boolean;
  agent(name: string): Promise<TestClient>;
  human(name: string, options?: { role?: 'MEMBER' | 'ADMIN' }): Promise<TestClient>;
  /**
   * Stops this node as a deploy does (its sockets close, its lease is released, its presence removed); its
   * clients reconnect to another node. Nodes are not restarted.
   */
  stop(): Promise<void>;
}

export interface TestHub {
  /** Node 0's address (the kit's, in front of it: it stays the same across `restart`). */
  readonly url: string;
  readonly port: number;
  /** Node 0's hub (store, router, pipeline, Butler, connector), for what the helpers do not cover. */
  readonly hub: Hub;
  /** The hub's nodes: one, or the cluster's in start order (node 0 migrated the database). */
  readonly nodes: readonly TestNode[];
  /** The REST client of the hub's admin. */
  readonly admin: ReturnType<typeof createRestClient>;
  readonly adminToken: string;
  /** Butler's user. */
  readonly butler: UserView;
  /** Butler's language model: enqueue replies (`textReply`, tool calls), read the requests. */
  readonly model: FakeModel;
  readonly platform: TestPlatform;
  /** The hub's log lines, parsed (in a cluster, each with the `node` that wrote it). */
  readonly logs: Array<Record<string, unknown>>;
  /** The actors of every running node (`hub.nodes[i].actors` for one node's). */
  readonly actors: TestActors;
  readonly clock: {
    /** The hub's time, in epoch milliseconds. */
    now(): number;
    /** Moves the hub's timers forward ('10m', '30s', or milliseconds) and waits for what they started (throws with `clock: 'real'`). */
    advance(duration: Duration): Promise<void>;
  };
  /**
   * Stops the hub and starts it again on the same database, secret, fakes and clock (one node only), as a deploy
   * does. `hub.url` stays the same (the new hub listens on a port of its own behind it, unless `env` sets
   * SERVER_PORT), so connected clients reconnect by themselves. `env` replaces the settings the hub was started
   * with (default: the same). Resolves once the new hub listens and every client the kit connected (and you did
   * not close) is back on it.
   */
  restart(options?: { env?: Record<string, string> }): Promise<void>;
  /** Registers an agent and connects it (to node 0 unless `node` says which). */
  agent(name: string, options?: NodeChoice): Promise<TestClient>;
  /** Creates a human (a MEMBER unless `role` says ADMIN) and connects them (to node 0 unless `node` says which). */
  human(name: string, options?: { role?: 'MEMBER' | 'ADMIN' } & NodeChoice): Promise<TestClient>;
  /** Resolves with the running node that leads once one does (a cluster elects one within seconds of losing it). */
  leader(options?: { timeout?: Duration }): Promise<TestNode>;
  /** Resolves when the commit queues are empty and every delivery made, on every running node. */
  quiesce(): Promise<void>;
  /** The recorded trace (throws unless the hub was started with `trace: true`), of one actor or all. */
  trace(filter?: { actor?: string | RegExp }): TraceEntry[];
  /** The trace's last entries and the actors' states, as text ('' without a trace). */
  explain(options?: { last?: number }): string;
  /** Closes the clients, stops every node and the fakes, and removes the temporary database. */
  stop(): Promise<void>;
}

const ADMIN = { username: 'admin', password: 'admin-password' };
const PASSWORD = 'test-password';
const APP = { id: 'cli_7e57c0de7e57c0de', secret: 'test-kit-app-secret' };
const EXPLAIN_LAST = 60;
/** How long quiesce waits for every node to hand over what was committed (a node's bus poll runs every second). */
const CATCH_UP_MS = 10_000;
const POLL_MS = 10;
/** How long a restart waits for the kit's clients to be back (their backoff after a close starts well under a second). */
const RECONNECT_MS = 10_000;

export async function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  checkNodes(options);
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

/** Refuses, before anything starts, a cluster the hub could not run. */
function checkNodes(options: TestHubOptions): void {
  const nodes = options.nodes ?? 1;
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`startTestHub: nodes must be a whole number of at least 1 (got ${String(options.nodes)})`);
  const missing = [options.databaseUrl ? undefined : 'databaseUrl (PostgreSQL)', options.redisUrl ? undefined : 'redisUrl (Redis)'].filter(Boolean);
  if ((nodes > 1 || options.redisUrl) && missing.length > 0)
    throw new Error(
      `startTestHub: a cluster (nodes: ${nodes}${options.redisUrl ? ', redisUrl' : ''}) needs ${missing.join(' and ')}: its nodes share one PostgreSQL database and one Redis`,
    );
  if (options.databaseUrl && options.databasePath) throw new Error('startTestHub: give databaseUrl (PostgreSQL) or databasePath (SQLite), not both');
}

async function start(options: TestHubOptions, cleanup: Array<() => Promise<void> | void>, runCleanup: () => Promise<void>): Promise<TestHub> {
  const model = await startFakeModel();
  cleanup.push(() => model.close());
  const fake = await startFakePlatform();
  cleanup.push(() => fake.close());
  fake.registerApp(APP.id, APP.secret);

  const clustered = options.redisUrl !== undefined;
  const nodeCount = options.nodes ?? 1;
  let db: Record<string, string>;
  if (options.databaseUrl) db = { DB_DRIVER: 'postgres', DATABASE_URL: options.databaseUrl };
  else if (options.databasePath) db = { DB_DRIVER: 'sqlite', DB_PATH: options.databasePath };
  else {
    const dir = mkdtempSync(join(tmpdir(), 'agent-hub-test-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    db = { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'hub.db') };
  }
  // A name of its own on Redis, so kit clusters of tests running side by side never share keys or channels.
  const cluster = clustered ? { REDIS_URL: options.redisUrl!, CLUSTER_NAME: `kit_${randomBytes(6).toString('hex')}` } : {};
  // What the kit sets; the user's `env` goes over it (and `restart` may replace the user's).
  const base = {
    SERVER_HOST: '127.0.0.1',
    SERVER_PORT: '0',
    JWT_SECRET: 'a-test-hub-secret-of-at-least-32-characters',
    INITIAL_ADMIN_USER: ADMIN.username,
    INITIAL_ADMIN_PASS: ADMIN.password,
    LOG_LEVEL: 'info',
    WEB_DIR: '',
    ...(options.platform === false ? {} : { CHATPLATFORM_BASE_URL: fake.url, CHATPLATFORM_WS_ENABLED: 'true', CHATPLATFORM_TIMEOUT_MS: '3000' }),
    ...(options.model === false ? {} : { BUTLER_BASE_URL: model.baseUrl, BUTLER_MODEL: 'fake-model', BUTLER_API_TOKEN: 'fake-model-key' }),
    ...db,
    ...cluster,
  };
  const env = { ...base, ...options.env };

  const logs: Array<Record<string, unknown>> = [];
  const sinkOf = (node: string | undefined) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (!line) continue;
          const parsed = JSON.parse(line) as Record<string, unknown>;
          const entry = node === undefined ? parsed : { ...parsed, node };
          logs.push(entry);
          options.onLog?.(entry);
        }
        done();
      },
    });

  // One clock for every node: the hub's timers (expiries, idle timeouts, retention) and timestamps run on it.
  const timers = options.clock === 'real' ? undefined : createSimulatedTimers();
  const now = () => timers?.now() ?? Date.now();
  const activity = new Set<() => void>();
  // The trace names actors from the hubs' tables, which exist once startHub returns (its first events come before).
  const started: Array<{ id: string; hub: Hub }> = [];
  const nameIn = (hub: Hub, ref: ActorRefLike): string | undefined => {
    if (ref === hub.router) return 'router';
    if (ref === hub.butler.actor) return 'butler';
    for (const [key, actor] of hub.connections) if (actor === ref) return connectionActorId(key);
    for (const [key, actor] of hub.butler.actor.getSnapshot().context.conversations) if (actor === ref) return conversationActorId(key);
    return undefined;
  };
  const nameOf = (ref: ActorRefLike): string | undefined => {
    for (const { id, hub } of started) {
      const name = nameIn(hub, ref);
      if (name !== undefined) return clustered ? `${id}/${name}` : name;
    }
    return undefined;
  };
  const tracer = options.trace ? createTracer({ now, nameOf }) : undefined;
  const inspect = (event: InspectionEvent) => {
    tracer?.inspect(event);
    if (event.type === '@xstate.snapshot') for (const listener of [...activity]) listener();
  };
  const onActivity = (listener: () => void) => {
    activity.add(listener);
    return () => activity.delete(listener);
  };

  type NodeState = { index: number; id: string; hub: Hub; running: boolean; front: Front };
  const states: NodeState[] = [];
  const running = () => states.filter((n) => n.running);
  const launch = async (id: string, settings: Record<string, string | undefined>): Promise<Hub> => {
    const config = parseConfig(clustered ? { ...settings, NODE_ID: id } : settings);
    const hub = await startHub({ config, logger: createLogger(config.logLevel, sinkOf(clustered ? id : undefined)), passwordCost: 1024, timers, inspect });
    started.push({ id, hub });
    return hub;
  };
  for (let index = 0; index < nodeCount; index++) {
    const id = `n${index + 1}`;
    // Node 0 migrates the database alone; the others join it one by one.
    const hub = await launch(id, env);
    // This node while it runs, else the next running one after it.
    const front = await startFront(() => {
      for (let step = 0; step < states.length; step++) {
        const next = states[(index + step) % states.length]!;
        if (next.running) return next.hub.port;
      }
      return undefined;
    });
    const state: NodeState = { index, id, hub, running: true, front };
    states.push(state);
    cleanup.push(async () => {
      if (!state.running) return;
      state.running = false;
      await state.hub.stop();
    });
    cleanup.push(() => front.close());
  }
  const urlOf = (state: NodeState) => state.front.url;
  const first = states[0]!;
  const url = urlOf(first);
  const anonymous = createRestClient({ url, token: '' });
  const adminToken = (await anonymous.login(ADMIN.username, ADMIN.password)).token;
  const admin = createRestClient({ url, token: adminToken });
  const butler = await admin.agents.butler();
  let settings = options.env ?? {};

  const sourceOf = (state: NodeState): ActorSource => ({ node: clustered ? state.id : undefined, inspection: state.hub.inspection });
  const actors = createTestActors({ sources: () => running().map(sourceOf), onActivity, explain: () => explain() });
  const explain = ({ last = EXPLAIN_LAST } = {}): string => {
    if (!tracer) return '';
    const entries = tracer.entries();
    const shown = entries.slice(-last);
    const states = actors
      .list()
      .map((a) => `  ${a.node === undefined ? '' : `${a.node}/`}${a.id} (${a.kind}): ${a.state}`)
      .join('\n');
    return [
      `actor trace (${shown.length < entries.length ? `the last ${shown.length} of ${entries.length + tracer.dropped}` : `${entries.length}`} entries):`,
      tracer.format(shown) || '  (empty)',
      'actors now:',
      states,
    ].join('\n');
  };

  // The kit's clients, and whose they are.
  const clients = new Map<HubClient, { id: number; username: string }>();
  cleanup.push(async () => {
    await Promise.all([...clients.keys()].map((c) => c.close().catch(() => undefined)));
  });
  async function connect(state: NodeState, token: string, user: { id: number; username: string }): Promise<TestClient> {
    const client = new HubClient({ url: urlOf(state), token });
    clients.set(client, user);
    const probe = attachProbe(client, { name: user.username, explain });
    await client.connect();
    return Object.assign(client, probe, { id: user.id, username: user.username, token });
  }
  async function agentOn(state: NodeState, name: string): Promise<TestClient> {
    const created = await admin.agents.register({ username: name });
    // Only a remote A2A agent comes back without a token, and the kit registers none.
    if (!created.api_token) throw new Error(`registering agent ${name} gave no api_token`);
    return connect(state, created.api_token, { id: created.id, username: name });
  }
  async function humanOn(state: NodeState, name: string, role: 'MEMBER' | 'ADMIN' = 'MEMBER'): Promise<TestClient> {
    const created = await admin.users.create({ username: name, password: PASSWORD, role });
    const { token } = await anonymous.login(name, PASSWORD);
    return connect(state, token, { id: created.id, username: name });
  }
  const nodeAt = (choice: NodeChoice = {}): NodeState => {
    const index = choice.node ?? 0;
    const state = states[index];
    if (!state) throw new Error(`the hub has no node ${index} (it has ${states.length}: 0 to ${states.length - 1})`);
    if (!state.running) throw new Error(`node ${index} (${state.id}) is stopped: connect to a running node`);
    return state;
  };
  const leads = (state: NodeState): boolean => {
    if (!state.running) return false;
    const section = state.hub.inspection.summary({ limit: 0 })['node'] as { leader?: boolean } | undefined;
    return section === undefined || section.leader === true;
  };

  async function settleNodes(): Promise<void> {
    // A delivery can queue another write (Butler's answer, the connector's post): settle until still.
    for (let i = 0; i < 2; i++) {
      for (const state of running()) {
        await state.hub.pipeline.drain();
        await state.hub.connector.settled();
      }
      await new Promise((resolve) => setImmediate(resolve));
      if (clustered) await caughtUp();
    }
  }
  /** Every running node has handed its sockets everything committed so far (by any node). */
  async function caughtUp(): Promise<void> {
    const live = running();
    if (live.length === 0) return;
    const row = await live[0]!.hub.store.db
      .selectFrom('messages')
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirstOrThrow();
    const newest = Number(row.m ?? 0);
    const through = (state: NodeState) => {
      const section = state.hub.inspection.summary({ limit: 0 })['node'] as { bus?: { delivered_through?: number } } | undefined;
      return section?.bus?.delivered_through ?? 0;
    };
    const deadline = performance.now() + CATCH_UP_MS;
    for (;;) {
      const behind = running().filter((state) => through(state) < newest);
      if (behind.length === 0) return;
      if (performance.now() > deadline)
        throw new Error(`quiesce: ${behind.map((s) => `${s.id} handed over through ${through(s)}`).join(', ')}, not yet ${newest}, after ${CATCH_UP_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Resolves once every client of the kit's that was not closed holds a live socket on node 0's hub. */
  function clientsBack(): Promise<void> {
    const missing = (): string[] => {
      const live = new Map<number, number>();
      for (const c of nodes[0]!.actors.list({ kind: 'connection' })) {
        if (!c.state.startsWith('open')) continue;
        const id = (c.context['user'] as { id?: number } | undefined)?.id;
        if (id !== undefined) live.set(id, (live.get(id) ?? 0) + 1);
      }
      const names: string[] = [];
      for (const [client, user] of clients) {
        if (client.state === 'stopped' || client.state === 'closing' || client.state === 'idle') continue;
        const left = live.get(user.id) ?? 0;
        if (left > 0) live.set(user.id, left - 1);
        else names.push(user.username);
      }
      return names;
    };
    return new Promise((resolve, reject) => {
      const check = () => {
        if (missing().length > 0) return;
        done();
        resolve();
      };
      const poll = setInterval(check, POLL_MS);
      const stopListening = onActivity(check);
      const timer = setTimeout(() => {
        done();
        reject(new Error(`restart: ${missing().join(', ')} did not reconnect within ${RECONNECT_MS} ms`));
      }, RECONNECT_MS);
      const done = () => {
        clearTimeout(timer);
        clearInterval(poll);
        stopListening();
      };
      check();
    });
  }

  const nodes: TestNode[] = states.map((state) => ({
    index: state.index,
    id: state.id,
    get url() {
      return urlOf(state);
    },
    get hub() {
      return state.hub;
    },
    get running() {
      return state.running;
    },
    actors: createTestActors({ sources: () => (state.running ? [sourceOf(state)] : []), onActivity, explain: () => explain() }),
    isLeader: () => leads(state),
    agent: async (name) => agentOn(nodeAt({ node: state.index }), name),
    human: async (name, humanOptions = {}) => humanOn(nodeAt({ node: state.index }), name, humanOptions.role),
    async stop() {
      if (!state.running) return;
      // Marked first: from here the front sends new connections to another node.
      state.running = false;
      await state.hub.stop();
    },
  }));

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
      for (const state of running()) await state.hub.connector.settled();
      return id;
    },
  }) as TestPlatform;

  return {
    url,
    port: first.front.port,
    get hub() {
      return first.hub;
    },
    nodes,
    admin,
    adminToken,
    butler,
    model,
    get platform() {
      if (options.platform === false) throw new Error('the hub was started with platform: false: it does not talk to the fake chat platform');
      return platform;
    },
    logs,
    actors,
    clock: {
      now,
      async advance(duration) {
        if (!timers) throw new Error("hub.clock.advance needs the simulated clock: the hub was started with clock: 'real'");
        await timers.advance(toMs(duration, 'clock.advance'));
        await settleNodes();
      },
    },
    async restart(restartOptions = {}) {
      if (states.length > 1) throw new Error('hub.restart is for a single hub: stop a cluster node with hub.nodes[i].stop()');
      settings = restartOptions.env ?? settings;
      if (first.running) {
        // Marked first: from here the front refuses new connections until the new hub listens.
        first.running = false;
        await first.hub.stop();
      }
      first.hub = await launch(first.id, { ...base, ...settings });
      first.running = true;
      await clientsBack();
    },
    // Async, so a wrong node rejects as every other failure does.
    agent: async (name, choice) => agentOn(nodeAt(choice), name),
    human: async (name, humanOptions = {}) => humanOn(nodeAt(humanOptions), name, humanOptions.role),
    async leader({ timeout = 10_000 } = {}) {
      const ms = toMs(timeout, 'timeout');
      const deadline = performance.now() + ms;
      for (;;) {
        const leading = states.find(leads);
        if (leading) return nodes[leading.index]!;
        if (performance.now() > deadline)
          throw new Error(
            `no running node led within ${ms} ms (running: ${
              running()
                .map((s) => s.id)
                .join(', ') || 'none'
            })`,
          );
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    quiesce: settleNodes,
    trace(filter) {
      if (!tracer) throw new Error('the hub records no trace: start it with startTestHub({ trace: true })');
      return tracer.entries(filter);
    },
    explain,
    stop: runCleanup,
  };
}
