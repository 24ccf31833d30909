// Butler assembled: its actor (systemId 'butler') in the router's actor system, its endpoint in the
// router's address table, and what its answers are made of (model or safe mode, tools, relay,
// authorizations, history). `start` binds it and re-arms pending authorization requests; `stop`
// aborts answers in progress and waits for each to end its stream.
//
// This folder is Butler's one home: its actor and conversation actors, its brain and the parts the
// brain uses, and its metrics. Its wire shapes stay in src/protocol/butler.ts, not here: the client
// (src/client/rest.ts) and protocol/frames.ts import them, and the client must never import server
// code. The file stays whole; its one server-only part, the tool-argument schemas, is wire text too
// (the model sends those arguments, and prompts and tests rely on the names).
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import type { RouterActor } from '../actors/router.js';
import type { ButlerConfig } from '../config.js';
import type { AuthorizationsRepo } from '../store/repositories/authorizations.js';
import type { ChatRepo } from '../store/repositories/chat.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Clock, Timers } from '../clock.js';
import type { Bus } from '../delivery/bus.js';
import { toPrincipal, type Directory } from '../delivery/directory.js';
import type { Leadership } from '../delivery/leadership.js';
import type { Ledger } from '../delivery/ledger.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { OnlineAgents } from '../delivery/presence.js';
import { butlerMachine } from './actor.js';
import { createAuthorizations } from './authorizations.js';
import { createBrain } from './brain.js';
import type { ConversationPorts } from './conversation.js';
import { followDecisions, forwardDecision } from './decisions.js';
import { createHistory } from './history.js';
import { IdleTimers } from './idleTimers.js';
import { createConversationMemory } from './memory.js';
import type { ButlerMeter } from './metrics.js';
import { createOpenAiModel, type LanguageModel } from './model.js';
import { createModelGate, gatedModel } from './modelGate.js';
import { createAgentRelay } from './relay.js';
import { openReplyStream } from './replyStream.js';
import { endOrphanedStreams, recordingSubmit } from './streams.js';
import { createToolbox, type AgentDirectory } from './tools.js';
import type { Endpoint, Principal } from '../delivery/types.js';

export interface ButlerDeps {
  settings: ButlerConfig;
  butler: Principal;
  router: RouterActor;
  pipeline: Pipeline;
  directory: Directory;
  users: UsersRepo;
  chat: ChatRepo;
  authorizations: AuthorizationsRepo;
  clock: Clock;
  /** The hub's timers: authorization expiry, conversation idle, agent-answer and answer deadlines. */
  timers: Timers;
  logger: Logger;
  /** Chat-platform users' commands are approved by admins (the connector knows who they are). */
  isPlatformIdentity(userId: number): Promise<boolean>;
  meter?: ButlerMeter;
  /** Replaces the OpenAI-compatible client (tests of the brain alone). */
  model?: LanguageModel;
  /**
   * Butler runs where the hub leads (a single node always does): it leads on `acquired`, stands by
   * on `lost`, and its expiry of authorization requests is fenced with the leadership's epoch.
   */
  leadership: Leadership;
  /** A decision stored on a node that does not lead is forwarded to the leader (butler/decisions.ts). */
  bus: Bus;
  /** Where Butler's open streams are kept for a successor (butler/streams.ts). */
  ledger: Ledger;
  /** Whether an agent is ONLINE (on any node), for Butler's agent list. */
  online: OnlineAgents;
}

/** Agents listed to the model or in safe mode at most; the rest are counted. */
const MAX_LISTED_AGENTS = 200;
/** How long stopping waits for answers to end their streams. */
const STOP_WAIT_MS = 5000;
/** Characters of conversation history kept in memory over all conversations (about 2 bytes each). */
const MEMORY_CHARS = 32 * 1024 * 1024;

export function createButler(deps: ButlerDeps) {
  const { settings, butler, router, directory, users, logger } = deps;
  const log = logger.child({ component: 'butler' });
  const memory = createConversationMemory({ chat: deps.chat, butlerId: butler.id, rowsPerTurn: settings.historyWindow * 2, maxChars: MEMORY_CHARS });
  // Everything Butler stores goes through here, so its memory of each conversation stays whole.
  // (The core's pipeline stays the prototype: its other members, live getters included, are its own.)
  const post: Pipeline['post'] = async (sender, input) => {
    const accepted = await deps.pipeline.post(sender, input);
    if (accepted.stored && !accepted.stored.duplicate) memory.record({ ...accepted.message, id: accepted.stored.id });
    return accepted;
  };
  const submit = recordingSubmit(deps.ledger, butler, deps.pipeline.submit);
  const pipeline = Object.create(deps.pipeline, { post: { value: post }, submit: { value: submit } }) as Pipeline;

  const isOnline = (id: number) => deps.online.isOnline(id);
  const agents: AgentDirectory = {
    async list() {
      const { rows, total } = await users.list({ roles: ['AGENT'], offset: 0, limit: MAX_LISTED_AGENTS });
      const list = rows.map((r) => {
        const online = isOnline(r.id);
        return {
          id: r.id,
          name: r.username,
          online,
          status: online ? 'ONLINE' : 'OFFLINE',
          last_report: r.last_report,
          last_seen_at: r.last_seen_at,
          agent_kind: r.agent_kind,
          description: r.description,
        };
      });
      return { agents: list, total };
    },
    async find(id) {
      await directory.load([id]);
      return directory.peek(id);
    },
    async findByName(name) {
      const exact = await users.findByUsername(name);
      if (exact) return toPrincipal(exact);
      const { rows } = await users.list({ roles: ['AGENT'], q: name, offset: 0, limit: 20 });
      const match = rows.find((r) => r.username.toLowerCase() === name.toLowerCase());
      return match && toPrincipal(match);
    },
    isOnline,
  };

  const relay = createAgentRelay({ pipeline, butler, timeoutMs: settings.agentReplyTimeoutMs, timers: deps.timers });
  const authorizations = createAuthorizations({
    repo: deps.authorizations,
    users,
    pipeline,
    butler,
    clock: deps.clock,
    timers: deps.timers,
    logger: log,
    timeoutMs: settings.authTimeoutMs,
    fence: deps.leadership.fence,
    onRequested: () => deps.meter?.authorization('PENDING'),
    onDecided(request) {
      memory.decided(request.action_id, request.status);
      deps.meter?.authorization(request.status);
      // The conversation that asked lives on the leader: a decision stored elsewhere goes there.
      if (!deps.leadership.isLeader()) return forwardDecision(deps.bus, request.action_id);
      // The outcome is a turn of the conversation that asked, answered to whoever asked.
      void agents
        .find(request.requester_id)
        .then((requester) => {
          if (requester) actor.send({ type: 'DECIDED', request, requester });
          else log.warn({ actionId: request.action_id }, 'the requester of a decided authorization request no longer exists');
        })
        .catch((err: unknown) => log.error({ err, actionId: request.action_id }, 'could not hand a decision to Butler'));
    },
  });
  const toolbox = createToolbox({
    agents,
    relay,
    authorizations,
    agentCommands: settings.agentCommands,
    isPlatformIdentity: deps.isPlatformIdentity,
    logger: log,
  });
  const client =
    deps.model ??
    (settings.model && createOpenAiModel({ ...settings.model, idleTimeoutMs: settings.streamIdleTimeoutMs, keepConnections: settings.maxConcurrency }));
  const gate = createModelGate(settings.maxConcurrency);
  // Metered inside the gate: a call's time is its stream's, not its wait for a slot.
  const model = client && gatedModel(deps.meter ? meteredModel(client, deps.meter) : client, gate);
  deps.meter?.watchModelCalls(() => ({ active: gate.active, queued: gate.queued }));
  const streamDeps = { pipeline, butler, logger: log, flushMs: settings.streamFlushMs, maxChars: settings.maxReplyChars };
  const brain = createBrain({
    model,
    toolbox,
    relay,
    history: createHistory({ chat: deps.chat, butlerId: butler.id, window: settings.historyWindow, memory }),
    openStream: (target) => openReplyStream(streamDeps, target),
    settings,
    timers: deps.timers,
    logger: log,
  });

  /** Answers in progress, so stopping can wait for each to end its stream. */
  const running = new Set<Promise<void>>();
  const ports: ConversationPorts = {
    answer(turn, asker, signal) {
      deps.meter?.turn(turn.kind);
      const answer = brain.answer(turn, asker, signal);
      running.add(answer);
      void answer.finally(() => running.delete(answer)).catch(() => undefined);
      return answer;
    },
    refuse(asker, queued) {
      const stream = openReplyStream(streamDeps, { to: asker.principal, conversationId: asker.conversationId });
      void stream.finish(
        `I am still working through ${queued} earlier messages in this conversation; send this one again once I have answered them (or send /cancel).`,
      );
    },
    failed(err, asker) {
      log.error({ err, asker: asker.principal.id }, 'a Butler answer failed without ending its stream');
    },
  };

  const actor = createActor(butlerMachine, {
    systemId: 'butler',
    // Butler joins the router's actor system, as connection actors do.
    parent: router,
    input: { butler, ports, claimAnswer: (frame) => relay.claim(frame), modelCalls: gate, idleTimers: new IdleTimers(deps.timers) },
  });
  actor.subscribe({ error: (err) => log.fatal({ err }, 'the Butler actor failed') });
  deps.meter?.watchConversations(() => actor.getSnapshot().context.conversations.size);
  followDecisions({ bus: deps.bus, leadership: deps.leadership, act: (actionId) => actOnDecision(actionId), log });

  let leading = false;
  /** Binds Butler and re-arms the expiry of pending authorization requests (start, or taking the lease). */
  async function lead(): Promise<void> {
    if (leading) return;
    leading = true;
    // What happened while this node did not run Butler did not reach its memory: it reads the store again.
    memory.clear();
    router.send({ type: 'BIND', endpoint });
    const pending = await authorizations.start();
    log.info(
      { mode: model ? 'model' : 'safe', model: model?.name, pendingAuthorizations: pending },
      `Butler is running (${model ? `model ${model.name}` : 'safe mode: no language model configured'})`,
    );
  }

  /** A decision another node stored: the conversation that asked hears it here. */
  async function actOnDecision(actionId: string): Promise<void> {
    const request = await deps.authorizations.find(actionId);
    if (!request || request.status === 'PENDING') return;
    memory.decided(request.action_id, request.status);
    const requester = await agents.find(request.requester_id);
    if (requester) actor.send({ type: 'DECIDED', request, requester });
  }

  const endpoint: Endpoint = {
    key: 0,
    user: butler,
    inHub: true,
    // The router hands an in-hub endpoint the frame object beside its text; Butler acts on CHAT only.
    deliver(_text, _id, frame) {
      if (frame?.type !== 'CHAT') return;
      if (frame.id !== undefined) memory.record({ ...frame, id: frame.id });
      // Not inside the router's delivery: Butler's work starts once the delivery round is over.
      queueMicrotask(() => actor.send({ type: 'INBOUND', frame }));
    },
    // Butler lives as long as the hub: revocations and resets do not unbind it.
    close() {},
  };

  return {
    actor,
    authorizations,
    relay,
    /** Butler as a user (its id and name). */
    principal: butler,

    /** Starts Butler's actor; Butler leads once the leadership says this node leads (see `takeOver`). */
    start(): void {
      // What happened while Butler was not running did not reach its memory: it reads the store again.
      memory.clear();
      actor.start();
      if (!deps.leadership.isLeader()) log.info('Butler is on standby: the leader node runs it');
    },

    lead,

    /** This node leads: Butler runs here, and ends the answers a previous leader left open. */
    async takeOver(): Promise<void> {
      await lead();
      await endOrphanedStreams({ ledger: deps.ledger, pipeline: deps.pipeline, butler, log });
    },

    /**
     * This node lost the lease: answers in progress end (saying so), waits for agents are given up,
     * expiry timers stop and Butler leaves the address table; the new leader takes over from the store.
     */
    standby(reason: string): void {
      authorizations.stop();
      router.send({ type: 'UNBIND', endpoint });
      relay.cancelAll(reason);
      actor.send({ type: 'RESET' });
      memory.clear();
      leading = false;
      log.warn({ reason }, 'Butler is on standby on this node');
    },

    actOnDecision,

    get leading(): boolean {
      return leading;
    },

    /** After a dev reset: conversations, open requests and expiry timers belong to wiped data. */
    reset(): void {
      memory.clear();
      authorizations.stop();
      relay.cancelAll('the hub was reset');
      actor.send({ type: 'RESET' });
    },

    async stop(): Promise<void> {
      memory.clear();
      authorizations.stop();
      router.send({ type: 'UNBIND', endpoint });
      actor.send({ type: 'SHUTDOWN' });
      relay.cancelAll('the hub is shutting down');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...running]), new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))]);
      clearTimeout(timer);
    },
  };
}
export type Butler = ReturnType<typeof createButler>;

/** The model with each call counted and timed. */
function meteredModel(model: LanguageModel, meter: ButlerMeter): LanguageModel {
  return {
    name: model.name,
    async step(messages, tools, options) {
      const started = performance.now();
      try {
        const result = await model.step(messages, tools, options);
        meter.modelCall('ok', (performance.now() - started) / 1000);
        return result;
      } catch (err) {
        meter.modelCall(options.signal.aborted ? 'aborted' : 'error', (performance.now() - started) / 1000);
        throw err;
      }
    },
  };
}
