// Which conversation thread a message belongs to. A human's chat to a machine goes to the thread
// it names, else the pair's default thread (made on first use); a machine's chat to a human that
// names none answers where the human last wrote to it (older agents never send a conversation_id),
// and a stream stays in the thread of its first chunk. The ids are cached: resolving a message
// costs no query once the hub has seen the pair.
import { Errors } from '../errors.js';
import { isMachineRole } from '../protocol/roles.js';
import { channelKindFor, defaultThreadTitle } from '../protocol/threads.js';
import type { DefaultThreadRequest } from '../store/batchWriter.js';
import type { Store } from '../store/db.js';
import type { ChatRepo } from '../store/repositories/chat.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import type { Directory } from './directory.js';
import { isThreadedType, type Item, type MessageItem } from './items.js';
import type { Principal } from './types.js';

/** The two parties of a human↔machine conversation. */
export interface Pair {
  human: Principal;
  machine: Principal;
}

interface ThreadMeta {
  owner: number;
  peer: number;
}

export interface ThreadDeps {
  store: Pick<Store, 'ensureDefaultThreads'>;
  threads: Pick<ThreadsRepo, 'findById'>;
  /** Where a human last wrote to a machine, when the hub has not seen it since it started. */
  chat: Pick<ChatRepo, 'latestConversation'>;
  directory: Pick<Directory, 'peek' | 'load'>;
  /** Streams whose end marker never came (a crashed agent) are forgotten, oldest first, past this many. */
  maxOpenStreams?: number;
}

/** The (human, machine) pair of a message between the two, or undefined (human↔human, agent↔agent). */
export function threadPair(sender: Principal, target: Principal): Pair | undefined {
  const senderMachine = isMachineRole(sender.role);
  if (senderMachine === isMachineRole(target.role)) return undefined;
  return senderMachine ? { human: target, machine: sender } : { human: sender, machine: target };
}

export const pairKey = (pair: Pair): string => `${pair.human.id}:${pair.machine.id}`;
const defaultKey = (pair: Pair): string => `${pair.human.id}:${pair.machine.id}:${channelKindFor(pair.machine.role)!}`;

/** The default thread of a pair, as the writer makes it when it does not exist yet. */
export function defaultThreadRequest(pair: Pair, at: string): DefaultThreadRequest {
  const kind = channelKindFor(pair.machine.role)!;
  return { ownerId: pair.human.id, peerId: pair.machine.id, kind, title: defaultThreadTitle(kind, pair.machine.username), at };
}

/** The key of a message's stream (`sender\0stream_id`), when it is part of one. */
const streamKey = (item: MessageItem) => (item.input.stream_id === undefined ? undefined : `${item.sender.id}\u0000${item.input.stream_id}`);

export function createThreadRouting(deps: ThreadDeps) {
  const { store, threads, chat, directory } = deps;
  const maxOpenStreams = deps.maxOpenStreams ?? 10_000;
  const defaultThreads = new Map<string, number>();
  const threadMeta = new Map<number, ThreadMeta>();
  /**
   * The thread of each human's latest CHAT to each machine (`human:machine`), kept as human→machine
   * messages resolve, read from the store once per pair after a start or a reset.
   */
  const latestThreads = new Map<string, number>();
  /** The thread each open stream went to: its final CHAT and end marker follow it there. */
  const streamThreads = new Map<string, number>();

  const pinnedStream = (item: MessageItem) => {
    const key = streamKey(item);
    return key === undefined ? undefined : streamThreads.get(key);
  };

  function remember(key: string, request: DefaultThreadRequest, id: number): void {
    defaultThreads.set(key, id);
    threadMeta.set(id, { owner: request.ownerId, peer: request.peerId });
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

  async function defaultThread(pair: Pair, at: string): Promise<number> {
    const key = defaultKey(pair);
    const cached = defaultThreads.get(key);
    if (cached !== undefined) return cached;
    const request = defaultThreadRequest(pair, at);
    const [id] = await store.ensureDefaultThreads([request]);
    remember(key, request, id!);
    return id!;
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
      id = await defaultThread(pair, item.at);
      latestThreads.set(key, id);
    }
    if (stream !== undefined && item.input.type === 'CHAT_STREAM') {
      if (streamThreads.size >= maxOpenStreams) streamThreads.delete(streamThreads.keys().next().value!);
      streamThreads.set(stream, id);
    }
    return id;
  }

  return {
    /**
     * Loads the batch's unknown targets, then makes the default threads it needs and the hub has
     * not seen yet in one call to the writer, before the batch is resolved (a burst of new
     * conversations costs one round trip, not one each). The caller leaves a failure here to
     * `conversationOf`, which answers each message on its own.
     */
    async prepare(items: readonly Item[], sought?: Set<number>): Promise<void> {
      const unknown = new Set<number>();
      for (const item of items) {
        if (item.kind === 'message' && item.input.target_id !== undefined && !directory.peek(item.input.target_id)) unknown.add(item.input.target_id);
      }
      if (unknown.size > 0) {
        await directory.load(unknown);
        for (const id of unknown) sought?.add(id);
      }
      const needed: Array<[Pair, string]> = [];
      const replies = new Map<string, [Pair, string]>();
      /** Pairs whose human writes in this batch: a reply after it goes to that message's thread. */
      const written = new Set<string>();
      for (const item of items) {
        if (item.kind !== 'message' || item.input.target_id === undefined || !isThreadedType(item.input.type)) continue;
        const target = directory.peek(item.input.target_id);
        const pair = target && threadPair(item.sender, target);
        if (!pair) continue;
        const key = pairKey(pair);
        if (!isMachineRole(item.sender.role)) {
          if (item.input.type === 'CHAT') written.add(key);
          if (item.input.conversation_id === undefined) needed.push([pair, item.at]);
        } else if (
          item.input.conversation_id === undefined &&
          pinnedStream(item) === undefined &&
          !latestThreads.has(key) &&
          !written.has(key) &&
          !replies.has(key)
        ) {
          // A reply goes where the human last wrote; only a human who never did needs the default thread.
          replies.set(key, [pair, item.at]);
        }
      }
      await lookUpLatest([...replies.values()].map(([pair]) => pair));
      for (const [key, reply] of replies) if (!latestThreads.has(key)) needed.push(reply);
      const wanted = new Map<string, DefaultThreadRequest>();
      for (const [pair, at] of needed) {
        const key = defaultKey(pair);
        if (!defaultThreads.has(key) && !wanted.has(key)) wanted.set(key, defaultThreadRequest(pair, at));
      }
      if (wanted.size === 0) return;
      const ids = await store.ensureDefaultThreads([...wanted.values()]);
      [...wanted].forEach(([key, request], i) => remember(key, request, ids[i]!));
    },

    /**
     * The conversation of one message to `target`, or the reason it cannot be accepted. Called in
     * batch order, so a stream's frames all resolve to the same thread.
     */
    async conversationOf(item: MessageItem, target: Principal | undefined): Promise<number | null> {
      const { input, sender } = item;
      const pair = target && isThreadedType(input.type) ? threadPair(sender, target) : undefined;
      const humanChat = pair !== undefined && input.type === 'CHAT' && !isMachineRole(sender.role);
      if (input.conversation_id !== undefined) {
        const thread = await loadThread(input.conversation_id);
        if (!thread) throw Errors.notFound(`conversation ${input.conversation_id}`);
        const parties = pair ? thread.owner === pair.human.id && thread.peer === pair.machine.id : thread.owner === sender.id || thread.peer === sender.id;
        if (!parties) throw Errors.badRequest(`conversation ${input.conversation_id} is not a conversation between the sender and the target`);
        if (humanChat) latestThreads.set(pairKey(pair), input.conversation_id);
        return input.conversation_id;
      }
      if (!pair) return null;
      if (isMachineRole(sender.role)) return replyThread(item, pair);
      const id = await defaultThread(pair, item.at);
      if (humanChat) latestThreads.set(pairKey(pair), id);
      return id;
    },

    /** Forgets every cached thread (after a dev reset wiped them). */
    reset(): void {
      defaultThreads.clear();
      threadMeta.clear();
      latestThreads.clear();
      streamThreads.clear();
    },
  };
}
export type ThreadRouting = ReturnType<typeof createThreadRouting>;
