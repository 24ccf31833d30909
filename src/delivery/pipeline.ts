// Persist, then deliver: every message from a socket, an HTTP call or the hub itself enters here,
// in order. A flush resolves targets and threads, commits the stored ones and the presence changes
// in one transaction (group commit), then hands the batch to the router in one event and answers
// each origin (ACK, echo, ERROR, or the HTTP caller). Stream chunks ride the same queue unstored,
// so a stream's chunks, final CHAT and end marker can never overtake each other.
import type { Logger } from 'pino';
import { audienceOf } from './audience.js';
import type { PipelineMeter } from './metrics.js';
import { Errors, HubError } from '../errors.js';
import { BUTLER_STREAM_PREFIX } from '../protocol/butler.js';
import { ChatTypes, isTelemetryType, monitorFrame, presenceFrame, toMessageFrame, type FrameSource } from '../protocol/frames.js';
import { ChatRowTypes, LogLevels, TelemetryTypes } from '../protocol/messages.js';
import { reportLine } from '../protocol/reportLine.js';
import { isMachineRole } from '../protocol/roles.js';
import { channelKindFor, defaultThreadTitle } from '../protocol/threads.js';
import type { BatchResult, DefaultThreadRequest, MessageInsert, PresencePatch, WriteBatch } from '../store/batchWriter.js';
import type { Store } from '../store/db.js';
import type { ChatRepo } from '../store/repositories/chat.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import { storableText } from '../store/repositories/like.js';
import { createWriteQueue } from '../store/writeQueue.js';
import type { Clock } from '../clock.js';
import type { Directory } from './directory.js';
import type { Audience, Delivery, Principal } from './types.js';
import type { Accepted, MessageInput, Origin } from './types.js';

interface MessageItem {
  kind: 'message';
  sender: Principal;
  input: MessageInput;
  store: boolean;
  at: string;
  origin?: Origin;
}

interface PresenceItem {
  kind: 'presence';
  userId: number;
  patch: PresencePatch;
  at: string;
}

type Item = MessageItem | PresenceItem;

export interface PipelineDeps {
  store: Store;
  threads: ThreadsRepo;
  /** Where a human last wrote to a machine, when the hub has not seen it since it started. */
  chat: Pick<ChatRepo, 'latestConversation'>;
  directory: Directory;
  clock: Clock;
  logger: Logger;
  /** The router's inbox: one call per committed batch. */
  deliver(deliveries: Delivery[]): void;
  /** Runs one delivery round (the edge corks each socket once per round); default: just runs it. */
  round?: (fn: () => void) => void;
  maxBatch?: number;
  /** Batch size, commit and delivery latency, queue depth; recorded once per batch. */
  meter?: PipelineMeter;
}

/** Types whose rows are kept (the rest is relayed only). */
const STORED_TYPES = new Set<string>([...ChatRowTypes, ...TelemetryTypes]);
/** Types that belong to a human↔machine conversation thread. */
const THREADED_TYPES = new Set<string>([...ChatTypes, ...ChatRowTypes]);
const MAX_CONTENT = 4096;
const NO_METER: PipelineMeter = { watchDepth: () => undefined, committed: () => undefined, delivered: () => undefined, failed: () => undefined };
const THREAD_TOUCH_MS = 1000;
const MAX_REPORT = 512;
/** How agents recognise Butler's commands: `[DIRECTIVE]` first, after any whitespace, in any case. */
const DIRECTIVE_LOOK = /^\s*\[directive\]/i;

/**
 * Only Butler's own messages may look like Butler's: a chat text starting with [DIRECTIVE] is a
 * command to an agent, and a stream id with Butler's prefix ties a message to one of Butler's
 * requests, so an agent answering Butler is the one other sender that may use such an id. Every
 * sender with role BUTLER here is Butler itself (no credential authenticates as Butler), except the
 * dev mock's record-only rows, which are checked like anyone's.
 */
function refusePosingAsButler(item: MessageItem, target: Principal | undefined): void {
  const { sender, input } = item;
  if (sender.role === 'BUTLER' && !input.recordOnly) return;
  if (THREADED_TYPES.has(input.type) && typeof input.payload === 'string' && DIRECTIVE_LOOK.test(input.payload)) throw Errors.directiveFromClient();
  if (input.stream_id?.startsWith(BUTLER_STREAM_PREFIX) && target?.role !== 'BUTLER') throw Errors.butlerStreamId(BUTLER_STREAM_PREFIX);
}
/** Streams whose end marker never came (a crashed agent) are forgotten, oldest first, past this many. */
const MAX_OPEN_STREAMS = 10_000;

/** The searchable text and level of a message, for `GET /api/messages` filters. */
export function summarise(type: string, payload: unknown): { level: string | null; content: string } {
  const fallbackLevel = isTelemetryType(type) ? 'INFO' : null;
  if (typeof payload === 'string') return { level: fallbackLevel, content: storableText(payload) };
  const record = (payload ?? {}) as Record<string, unknown>;
  const level = typeof record['level'] === 'string' && (LogLevels as readonly string[]).includes(record['level']) ? record['level'] : fallbackLevel;
  const content = typeof record['content'] === 'string' ? record['content'] : JSON.stringify(payload).slice(0, MAX_CONTENT);
  return { level, content: storableText(content) };
}

/** A message as the pipeline carries it: the frame's fields plus the stored columns. */
type Source = FrameSource & Omit<MessageInsert, 'payload'>;

interface ThreadMeta {
  owner: number;
  peer: number;
}

interface Pair {
  human: Principal;
  machine: Principal;
}

export function createPipeline(deps: PipelineDeps) {
  const { store, threads, chat, directory, clock, logger } = deps;
  const meter = deps.meter ?? NO_METER;
  const round = deps.round ?? ((fn: () => void) => fn());
  const defaultThreads = new Map<string, number>();
  /** When each thread's last_message_at was last written (epoch ms). */
  const threadTouchedAt = new Map<number, number>();
  const threadMeta = new Map<number, ThreadMeta>();
  /**
   * The thread of each human's latest CHAT to each machine (`human:machine`). A machine's chat to a
   * human without a conversation_id answers there (older agents never send one); kept as human→machine
   * messages resolve, read from the store once per pair after a start or a reset.
   */
  const latestThreads = new Map<string, number>();
  /** The thread each open stream went to (`sender\0stream_id`): its final CHAT and end marker follow it there. */
  const streamThreads = new Map<string, number>();

  /** The (human, machine) pair of a message, when it has one. */
  function threadPair(sender: Principal, target: Principal): Pair | undefined {
    const senderMachine = isMachineRole(sender.role);
    if (senderMachine === isMachineRole(target.role)) return undefined;
    return senderMachine ? { human: target, machine: sender } : { human: sender, machine: target };
  }

  async function loadThread(id: number): Promise<ThreadMeta | undefined> {
    const cached = threadMeta.get(id);
    if (cached) return cached;
    const row = await threads.findById(id);
    if (!row) return undefined;
    const meta = { owner: row.owner_user_id, peer: row.peer_user_id };
    threadMeta.set(id, meta);
    return meta;
  }

  const defaultKey = (human: Principal, machine: Principal) => `${human.id}:${machine.id}:${channelKindFor(machine.role)!}`;

  function threadRequest(human: Principal, machine: Principal, at: string): DefaultThreadRequest {
    const kind = channelKindFor(machine.role)!;
    return { ownerId: human.id, peerId: machine.id, kind, title: defaultThreadTitle(kind, machine.username), at };
  }

  function remember(key: string, request: DefaultThreadRequest, id: number): void {
    defaultThreads.set(key, id);
    threadMeta.set(id, { owner: request.ownerId, peer: request.peerId });
  }

  const pairKey = (pair: Pair) => `${pair.human.id}:${pair.machine.id}`;
  const streamKey = (item: MessageItem) => (item.input.stream_id === undefined ? undefined : `${item.sender.id}\u0000${item.input.stream_id}`);
  const pinnedStream = (item: MessageItem) => {
    const key = streamKey(item);
    return key === undefined ? undefined : streamThreads.get(key);
  };

  /** Reads the latest thread of pairs the hub has not seen a message of since it started. */
  async function lookUpLatest(pairs: Iterable<Pair>): Promise<void> {
    await Promise.all(
      [...pairs].map(async (pair) => {
        const id = await chat.latestConversation(pair.human.id, pair.machine.id);
        // A message resolved meanwhile is newer than what the store had.
        if (id !== undefined && !latestThreads.has(pairKey(pair))) latestThreads.set(pairKey(pair), id);
      }),
    );
  }

  /**
   * The thread of a machine's chat to a human that names none: where the human last wrote to it,
   * else their default thread. A stream stays in the thread its first chunk went to, even when the
   * human writes elsewhere meanwhile.
   */
  async function replyThread(item: MessageItem, pair: Pair): Promise<number> {
    const stream = streamKey(item);
    const pinned = pinnedStream(item);
    if (pinned !== undefined) {
      if (item.input.type === 'CHAT_STREAM_END') streamThreads.delete(stream!);
      return pinned;
    }
    const key = pairKey(pair);
    if (!latestThreads.has(key)) await lookUpLatest([pair]);
    let id = latestThreads.get(key);
    if (id === undefined) {
      id = await defaultThread(pair.human, pair.machine, item.at);
      latestThreads.set(key, id);
    }
    if (stream !== undefined && item.input.type === 'CHAT_STREAM') {
      if (streamThreads.size >= MAX_OPEN_STREAMS) streamThreads.delete(streamThreads.keys().next().value!);
      streamThreads.set(stream, id);
    }
    return id;
  }

  async function defaultThread(human: Principal, machine: Principal, at: string): Promise<number> {
    const key = defaultKey(human, machine);
    const cached = defaultThreads.get(key);
    if (cached !== undefined) return cached;
    const request = threadRequest(human, machine, at);
    const [id] = await store.ensureDefaultThreads([request]);
    remember(key, request, id!);
    return id!;
  }

  /**
   * The default threads a batch needs and the hub has not seen yet, made in one call to the writer
   * before the batch is resolved (a burst of new conversations costs one round trip, not one each).
   * A failure here is left to the per-message path, which answers each message on its own.
   */
  async function prepareThreads(items: Item[], sought: Set<number>): Promise<void> {
    const unknown = new Set<number>();
    for (const item of items) {
      if (item.kind === 'message' && item.input.target_id !== undefined && !directory.peek(item.input.target_id)) unknown.add(item.input.target_id);
    }
    if (unknown.size > 0) {
      await directory.load(unknown);
      for (const id of unknown) sought.add(id);
    }
    const needed: Array<[Pair, string]> = [];
    const replies = new Map<string, [Pair, string]>();
    /** Pairs whose human writes in this batch: a reply after it goes to that message's thread. */
    const written = new Set<string>();
    for (const item of items) {
      if (item.kind !== 'message' || item.input.target_id === undefined || !THREADED_TYPES.has(item.input.type)) continue;
      const target = directory.peek(item.input.target_id);
      const pair = target && threadPair(item.sender, target);
      if (!pair) continue;
      const key = pairKey(pair);
      if (!isMachineRole(item.sender.role)) {
        if (item.input.type === 'CHAT') written.add(key);
        if (item.input.conversation_id === undefined) needed.push([pair, item.at]);
      } else if (item.input.conversation_id === undefined && pinnedStream(item) === undefined && !latestThreads.has(key) && !written.has(key) && !replies.has(key)) {
        // A reply goes where the human last wrote; only a human who never did needs the default thread.
        replies.set(key, [pair, item.at]);
      }
    }
    await lookUpLatest([...replies.values()].map(([pair]) => pair));
    for (const [key, reply] of replies) if (!latestThreads.has(key)) needed.push(reply);
    const wanted = new Map<string, DefaultThreadRequest>();
    for (const [pair, at] of needed) {
      const key = defaultKey(pair.human, pair.machine);
      if (!defaultThreads.has(key) && !wanted.has(key)) wanted.set(key, threadRequest(pair.human, pair.machine, at));
    }
    if (wanted.size === 0) return;
    const ids = await store.ensureDefaultThreads([...wanted.values()]);
    [...wanted].forEach(([key, request], i) => remember(key, request, ids[i]!));
  }

  /**
   * Target, role and conversation of one message, or the reason it cannot be accepted.
   * Runs in batch order, so a stream's frames all resolve to the same thread.
   */
  async function resolve(item: MessageItem, sought: Set<number>): Promise<{ target: Principal | undefined; conversationId: number | null }> {
    const { input, sender } = item;
    let target: Principal | undefined;
    if (input.target_id !== undefined) {
      target = directory.peek(input.target_id);
      // A missing user is looked for once per batch, not once per frame (a query each on PostgreSQL).
      if (!target && !sought.has(input.target_id)) {
        await directory.load([input.target_id]);
        sought.add(input.target_id);
        target = directory.peek(input.target_id);
      }
      if (!target) throw Errors.notFound(`target user ${input.target_id}`);
    }
    refusePosingAsButler(item, target);
    const pair = target && THREADED_TYPES.has(input.type) ? threadPair(sender, target) : undefined;
    const humanChat = pair !== undefined && input.type === 'CHAT' && !isMachineRole(sender.role);
    if (input.conversation_id !== undefined) {
      const thread = await loadThread(input.conversation_id);
      if (!thread) throw Errors.notFound(`conversation ${input.conversation_id}`);
      const parties = pair ? thread.owner === pair.human.id && thread.peer === pair.machine.id : thread.owner === sender.id || thread.peer === sender.id;
      if (!parties) throw Errors.badRequest(`conversation ${input.conversation_id} is not a conversation between the sender and the target`);
      if (humanChat) latestThreads.set(pairKey(pair), input.conversation_id);
      return { target, conversationId: input.conversation_id };
    }
    if (!pair) return { target, conversationId: null };
    if (isMachineRole(sender.role)) return { target, conversationId: await replyThread(item, pair) };
    const id = await defaultThread(pair.human, pair.machine, item.at);
    if (humanChat) latestThreads.set(pairKey(pair), id);
    return { target, conversationId: id };
  }

  function sourceOf(item: MessageItem, target: Principal | undefined, conversationId: number | null): Source {
    const { input, sender } = item;
    const { level, content } = summarise(input.type, input.payload);
    return {
      type: input.type,
      sender_id: sender.id,
      sender_name: sender.username,
      sender_role: sender.role,
      target_id: target?.id ?? null,
      target_role: target?.role ?? null,
      payload: input.payload,
      level,
      content,
      local_id: input.local_id ?? null,
      conversation_id: conversationId,
      stream_id: input.stream_id ?? null,
      created_at: item.at,
    };
  }

  async function flush(items: Item[]): Promise<void> {
    // 1. Resolve every message in order; a message that cannot be accepted is answered and dropped.
    interface Ready {
      item: MessageItem;
      source: Source;
      audience: Audience;
      /** Index into batch.messages when stored; -1 for a relay. */
      row: number;
      /** Earlier message of this batch with the same (sender, local_id). */
      sameAs?: Ready;
    }
    const ready: Ready[] = [];
    const batch: WriteBatch = { messages: [], presence: [], threads: [] };
    const presence = new Map<number, { patch: PresencePatch; at: string }>();
    const touched = new Map<number, string>();
    const byLocalId = new Map<string, Ready>();
    const rejected: Array<[MessageItem, HubError]> = [];
    const mergePresence = (userId: number, patch: PresencePatch, at: string) =>
      presence.set(userId, { patch: { ...presence.get(userId)?.patch, ...patch }, at });

    /** Target ids this flush looked up in the store. */
    const sought = new Set<number>();
    await prepareThreads(items, sought).catch((err: unknown) => logger.warn({ err }, 'could not prepare the conversation threads of a batch'));
    for (const item of items) {
      if (item.kind === 'presence') {
        mergePresence(item.userId, item.patch, item.at);
        continue;
      }
      let resolved: Awaited<ReturnType<typeof resolve>>;
      try {
        resolved = await resolve(item, sought);
      } catch (err) {
        rejected.push([item, err instanceof HubError ? err : Errors.unavailable('could not route the message')]);
        if (!(err instanceof HubError)) logger.error({ err }, 'resolving a message failed');
        continue;
      }
      const source = sourceOf(item, resolved.target, resolved.conversationId);
      const entry: Ready = { item, source, audience: audienceOf(source), row: -1 };
      if (item.store) {
        const key = source.local_id === null ? undefined : `${source.sender_id}\u0000${source.local_id}`;
        const first = key === undefined ? undefined : byLocalId.get(key);
        if (first) entry.sameAs = first;
        else {
          entry.row = batch.messages.push({ ...source, payload: JSON.stringify(source.payload) }) - 1;
          if (key !== undefined) byLocalId.set(key, entry);
        }
        if (source.conversation_id !== null) touched.set(source.conversation_id, item.at);
        // Every report an agent sends says it is alive and what it did last, not only SYSTEM_LOG.
        if (isTelemetryType(item.input.type) && item.sender.role === 'AGENT') {
          mergePresence(item.sender.id, { last_report: reportLine(item.input.type, item.input.payload, MAX_REPORT), last_seen_at: item.at }, item.at);
        }
      }
      ready.push(entry);
    }
    for (const [userId, { patch, at }] of presence) batch.presence.push({ userId, patch, at });
    for (const [id, at] of touched) {
      // A busy thread's last_message_at is written at most once a second (THREAD_TOUCH_MS): each
      // write costs the writer about as much as a message, and lists order by it only coarsely.
      const nowMs = Date.parse(at);
      if (nowMs - (threadTouchedAt.get(id) ?? -Infinity) < THREAD_TOUCH_MS) continue;
      threadTouchedAt.set(id, nowMs);
      batch.threads.push({ id, at });
    }

    // 2. One transaction for the whole batch. A writer that commits strictly in posting order (the
    // SQLite thread) is handed the next batch while this one commits, so preparing and committing
    // overlap; outcomes are still handled in batch order.
    const needsWrite = batch.messages.length > 0 || batch.presence.length > 0 || batch.threads.length > 0;
    const writeStarted = performance.now();
    let committedAt = writeStarted;
    const write: Promise<BatchResult> = needsWrite ? store.writeBatch(batch) : Promise.resolve({ messages: [], presence: [] });
    const previous = completing;
    const completion = write
      .then(
        (result) => {
          committedAt = performance.now();
          if (needsWrite) meter.committed(items.length, (committedAt - writeStarted) / 1000);
          return { result };
        },
        (err: unknown) => {
          meter.failed();
          return { err };
        },
      )
      .then(async (outcome) => {
        await previous;
        try {
          complete(outcome);
        } catch (err) {
          logger.error({ err }, 'delivering a committed batch failed');
        }
      });
    completing = completion;
    outstanding.push(completion);
    while (outstanding.length >= Math.max(1, store.writeDepth)) await outstanding.shift();

    function complete(outcome: { result?: BatchResult; err?: unknown }): void {
      if (!outcome.result) {
        logger.error({ err: outcome.err, messages: batch.messages.length }, 'storing a batch of messages failed; senders are told to retry');
        const error = Errors.unavailable('the message could not be stored; send it again');
        for (const r of ready) if (r.item.store) r.item.origin?.rejected(error, r.item.input);
        for (const [item, e] of rejected) item.origin?.rejected(e, item.input);
        // Relays of the batch still go out: they were never meant to be stored.
        const relays = ready.filter((r) => !r.item.store);
        deps.deliver(relays.map((r) => toDelivery(r.source, r.audience)));
        return;
      }
      const stored = outcome.result.messages;
      const presenceRows = outcome.result.presence;

      // 3. Deliver the batch in order (one router event), then answer each origin.
      const deliveries: Delivery[] = [];
      const answers: Array<() => void> = [];
      for (const r of ready) {
        const storedRow = r.sameAs ? { ...stored[r.sameAs.row]!, duplicate: true } : r.row >= 0 ? stored[r.row]! : undefined;
        if (storedRow) {
          r.source.id = storedRow.id;
          if (storedRow.duplicate) {
            r.source.created_at = storedRow.created_at;
            r.source.conversation_id = storedRow.conversation_id;
          }
        }
        const frame = toMessageFrame(r.source);
        const text = JSON.stringify(frame);
        if (!storedRow?.duplicate) deliveries.push(toDelivery(r.source, r.audience, text, r.item.input.recordOnly));
        const origin = r.item.origin;
        if (origin) answers.push(() => origin.accepted({ frame, text, stored: storedRow }));
      }
      for (const row of presenceRows) {
        if (row.role !== 'AGENT') continue;
        const text = presenceFrame(
          { user_id: row.id, username: row.username, status: row.status, online: row.online === 1, last_seen_at: row.last_seen_at, last_report: row.last_report },
          clock(),
        );
        deliveries.push({ type: 'PRESENCE', text, audience: { broadcast: 'humans', echo: false, exceptSender: false, monitor: false }, senderId: row.id });
      }
      round(() => {
        if (deliveries.length > 0) deps.deliver(deliveries);
        for (const answer of answers) answer();
        for (const [item, e] of rejected) item.origin?.rejected(e, item.input);
      });
      // The round has written every socket's frames: persisted → sent.
      if (deliveries.length > 0) meter.delivered((performance.now() - committedAt) / 1000);
    }
  }

  function toDelivery(source: FrameSource, audience: Audience, text = JSON.stringify(toMessageFrame(source)), recordOnly = false): Delivery {
    const delivery: Delivery = { type: source.type, text, audience, senderId: source.sender_id };
    if (recordOnly) delivery.socketsOnly = true;
    if (source.id !== undefined) delivery.id = source.id;
    if (audience.monitor) delivery.monitorText = monitorFrame(source);
    return delivery;
  }

  /** Completion of the newest batch handed to the store; each waits for the one before it. */
  let completing: Promise<void> = Promise.resolve();
  const outstanding: Array<Promise<void>> = [];

  const queue = createWriteQueue<Item>({
    flush,
    maxBatch: deps.maxBatch ?? 1000,
    onFlushError(err, items) {
      logger.error({ err, items: items.length }, 'a message batch failed unexpectedly');
      const error = Errors.unavailable('the message could not be processed; send it again');
      for (const item of items) if (item.kind === 'message') item.origin?.rejected(error, item.input);
    },
  });

  meter.watchDepth(() => queue.depth);

  function submit(sender: Principal, input: MessageInput, origin?: Origin): void {
    queue.push({ kind: 'message', sender, input, store: STORED_TYPES.has(input.type), at: clock(), origin });
  }

  return {
    /** Queues a message; `origin` hears whether it was accepted. Relayed types are not stored. */
    submit,

    /** The same, for callers that wait for the outcome (HTTP routes, the hub's own services). */
    post(sender: Principal, input: MessageInput): Promise<Accepted> {
      return new Promise((resolve, reject) => submit(sender, input, { accepted: resolve, rejected: reject }));
    },

    /** Queues a presence change; humans get a PRESENCE frame once it is stored. */
    presence(userId: number, patch: PresencePatch): void {
      queue.push({ kind: 'presence', userId, patch, at: clock() });
    },

    get depth(): number {
      return queue.depth;
    },

    /** Resolves once everything queued so far is committed, delivered and answered. */
    async drain(): Promise<void> {
      for (;;) {
        await queue.drain();
        const last = completing;
        await last;
        if (last === completing && queue.depth === 0) return;
      }
    },

    /** Forgets cached threads (after a dev reset wiped them). */
    reset(): void {
      defaultThreads.clear();
      threadMeta.clear();
      threadTouchedAt.clear();
      latestThreads.clear();
      streamThreads.clear();
    },
  };
}
export type Pipeline = ReturnType<typeof createPipeline>;
