// Persist, then deliver: every message from a socket, an HTTP call or the hub itself enters here,
// in order. The queue hands each flush to the stages in turn: the threads the batch needs
// (threads.ts), each message resolved into one write (resolve.ts, batch.ts), one transaction with
// outcomes in batch order (commit.ts), then one router event and each origin's answer (ACK, echo,
// ERROR, or the HTTP caller; deliver.ts). Stream chunks ride the same queue unstored, so a stream's
// chunks, final CHAT and end marker can never overtake each other.
import type { Logger } from 'pino';
import { Errors } from '../errors.js';
import type { PresencePatch } from '../store/batchWriter.js';
import type { Store } from '../store/db.js';
import type { ChatRepo } from '../store/repositories/chat.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import { createWriteQueue } from '../store/writeQueue.js';
import type { Clock } from '../clock.js';
import { buildBatch, createTouchThrottle, needsWrite } from './batch.js';
import { createCommitOrder } from './commit.js';
import { createDeliver, type DeliverDeps } from './deliver.js';
import type { Directory } from './directory.js';
import { isStoredType, type Item } from './items.js';
import type { PipelineMeter } from './metrics.js';
import { createResolver } from './resolve.js';
import { createThreadRouting } from './threads.js';
import type { Accepted, Delivery, MessageInput, Origin, Principal } from './types.js';

export interface PipelineDeps {
  /** The writer: group commits and default threads, `writeDepth` batches (and `writeBudget`) in flight. */
  store: Pick<Store, 'writeBatch' | 'ensureDefaultThreads' | 'writeDepth'> & Partial<Pick<Store, 'writeBudget'>>;
  threads: Pick<ThreadsRepo, 'findById'>;
  /** Where a human last wrote to a machine, when the hub has not seen it since it started. */
  chat: Pick<ChatRepo, 'latestConversation'>;
  directory: Pick<Directory, 'peek' | 'load'>;
  clock: Clock;
  logger: Logger;
  /** The router's inbox: one call per committed batch. */
  deliver(deliveries: Delivery[]): void;
  /** Cluster mode: settled batches go here (see deliver.ts `Handoff`) instead of out at once. */
  handoff?: DeliverDeps['handoff'];
  /** Runs one delivery round (the edge corks each socket once per round); default: just runs it. */
  round?: (fn: () => void) => void;
  /** Items per flush (default 4,000); the store's `writeBudget` bounds rows and bytes in flight. */
  maxBatch?: number;
  /** Batch size, commit and delivery latency, queue depth; recorded once per batch. */
  meter?: PipelineMeter;
  /**
   * Bytes of messages taken and not yet settled, hub-wide, beyond which `admit` refuses more
   * (WRITE_QUEUE_MAX_BYTES; default: no bound). While the store is slow or away, memory stays bounded.
   */
  maxQueuedBytes?: number;
}

const NO_METER: PipelineMeter = {
  watchDepth: () => undefined,
  committed: () => undefined,
  delivered: () => undefined,
  failed: () => undefined,
  watchQueuedBytes: () => undefined,
  refused: () => undefined,
};

/** Beyond its text, what a message costs the hub while it waits (objects, ids, its origin), roughly. */
const ITEM_OVERHEAD_BYTES = 200;

/** The weight of a message that did not come as a frame of known size (HTTP, the hub's own). */
export function estimateBytes(input: MessageInput): number {
  let text = 0;
  try {
    text = JSON.stringify(input.payload ?? null)?.length ?? 0;
  } catch {
    // An unserialisable payload is refused later, by the resolver; it weighs its overhead until then.
  }
  return ITEM_OVERHEAD_BYTES + text;
}

export function createPipeline(deps: PipelineDeps) {
  const { store, clock, logger } = deps;
  const meter = deps.meter ?? NO_METER;
  const threads = createThreadRouting({ store, threads: deps.threads, chat: deps.chat, directory: deps.directory });
  const resolve = createResolver({ directory: deps.directory, threads });
  const touches = createTouchThrottle();
  const commits = createCommitOrder({ store, meter, logger });
  const complete = createDeliver({ deliver: deps.deliver, handoff: deps.handoff, round: deps.round ?? ((fn) => fn()), clock, logger, meter });

  const maxQueuedBytes = deps.maxQueuedBytes ?? Infinity;
  /** Bytes of messages submitted and not yet settled (committed or refused); see `admit`. */
  let queuedBytes = 0;
  let full = false;
  meter.watchQueuedBytes(() => queuedBytes);

  const settled = (bytes: number) => {
    queuedBytes -= bytes;
    // Logged again only once half the room is back, so a queue at its bound does not log every message.
    if (full && queuedBytes <= maxQueuedBytes / 2) {
      full = false;
      logger.info({ queuedBytes, maxQueuedBytes }, 'the write queue has room again: messages are taken again');
    }
  };

  async function flush(items: Item[]): Promise<void> {
    let weight = 0;
    for (const item of items) if (item.kind === 'message') weight += item.bytes;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      settled(weight);
    };
    try {
      /** User ids this flush looked up in the store: a missing target costs one query per batch. */
      const sought = new Set<number>();
      await threads.prepare(items, sought).catch((err: unknown) => logger.warn({ err }, 'could not prepare the conversation threads of a batch'));
      const batch = await buildBatch(items, { resolve: (item) => resolve(item, sought), touches, logger });
      await commits.commit({
        write: batch.write,
        size: batch.size,
        needsWrite: needsWrite(batch.write),
        complete: (outcome, committedAt) => {
          release();
          complete(batch, outcome, committedAt);
        },
      });
    } catch (err) {
      release();
      throw err;
    }
  }

  const queue = createWriteQueue<Item>({
    flush,
    // Large enough that a batch taken after a slow commit (PostgreSQL's writer takes one per commit)
    // carries everything that waited; SQLite's thread groups smaller batches on its own.
    maxBatch: deps.maxBatch ?? 4000,
    onFlushError(err, items) {
      logger.error({ err, items: items.length }, 'a message batch failed unexpectedly');
      const error = Errors.unavailable('the message could not be processed; send it again');
      for (const item of items) if (item.kind === 'message') item.origin?.rejected(error, item.input);
    },
  });

  meter.watchDepth(() => queue.depth);

  /** `bytes`: the frame's size when it came as one; otherwise estimated from the payload. */
  function submit(sender: Principal, input: MessageInput, origin?: Origin, bytes?: number): void {
    const weight = bytes ?? estimateBytes(input);
    queuedBytes += weight;
    queue.push({ kind: 'message', sender, input, store: isStoredType(input.type), at: clock(), origin, bytes: weight });
  }

  return {
    /** Queues a message; `origin` hears whether it was accepted. Relayed types are not stored. */
    submit,

    /**
     * Whether a message of `bytes` may be taken now: false (counted, and logged once per spell) when
     * the messages taken and not yet settled would pass WRITE_QUEUE_MAX_BYTES. The edges ask before
     * they parse or queue a client's message, and answer a refusal with `unavailable` (503).
     */
    admit(bytes: number): boolean {
      if (queuedBytes + bytes <= maxQueuedBytes) return true;
      meter.refused();
      if (!full) {
        full = true;
        logger.warn(
          { queuedBytes, maxQueuedBytes },
          'the write queue is full (WRITE_QUEUE_MAX_BYTES): new messages are refused with unavailable until the store catches up',
        );
      }
      return false;
    },

    /** Bytes of messages taken and not yet settled. */
    get queuedBytes(): number {
      return queuedBytes;
    },

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
        const last = commits.last;
        await last;
        if (last === commits.last && queue.depth === 0) return;
      }
    },

    /**
     * Resolves once every batch handed to the store so far is settled and handed off (cluster mode:
     * a node reading the store waits for this, so it never takes its own rows for another node's).
     */
    settled(): Promise<void> {
      return commits.last;
    },

    /** Forgets cached threads (after a dev reset wiped them). */
    reset(): void {
      threads.reset();
      touches.clear();
    },
  };
}
export type Pipeline = ReturnType<typeof createPipeline>;
