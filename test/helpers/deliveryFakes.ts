// In-memory stand-ins for what the delivery pipeline uses: the writer (group commits, default
// threads, writeDepth), the threads and chat repositories, the directory, the router's inbox and
// the origins, all recording into one ordered log so tests can check what happened in which order.
import pino from 'pino';
import type { Clock } from '../../src/clock.js';
import type { HubError } from '../../src/errors.js';
import type { BatchResult, DefaultThreadRequest, PresenceRow, StoredMessage, WriteBatch } from '../../src/store/batchWriter.js';
import type { ThreadRow } from '../../src/store/schema.js';
import { createPipeline, type PipelineDeps } from '../../src/delivery/pipeline.js';
import type { Accepted, Delivery, MessageInput, Origin, Principal } from '../../src/delivery/types.js';

export const users = {
  alice: { id: 1, username: 'alice', role: 'MEMBER' },
  bob: { id: 2, username: 'bob', role: 'MEMBER' },
  weather: { id: 10, username: 'weather', role: 'AGENT' },
  coder: { id: 11, username: 'coder', role: 'AGENT' },
  butler: { id: 20, username: 'butler', role: 'BUTLER' },
} satisfies Record<string, Principal>;

interface PendingWrite {
  batch: WriteBatch;
  result: BatchResult;
  settle(fail?: unknown): void;
}

/**
 * The store's writer. Ids are given in posting order (as the SQLite thread commits); with `hold`,
 * each write waits until the test settles it, so commits can be reported out of order.
 */
export class FakeStore {
  writeDepth: number;
  hold = false;
  /** Every batch handed to writeBatch, in posting order. */
  readonly writes: WriteBatch[] = [];
  readonly pending: PendingWrite[] = [];
  readonly threadRequests: DefaultThreadRequest[][] = [];
  readonly threads = new Map<number, ThreadRow>();
  /** What writeBatch throws next (once). */
  failNext: unknown;
  private nextMessageId = 100;
  private nextThreadId = 500;
  private readonly byLocalId = new Map<string, StoredMessage>();
  private readonly presenceUsers = new Map<number, PresenceRow>();
  private writeWaiters: Array<() => void> = [];

  constructor(writeDepth = 1) {
    this.writeDepth = writeDepth;
    for (const u of Object.values(users)) {
      this.presenceUsers.set(u.id, { id: u.id, username: u.username, role: u.role, status: 'OFFLINE', online: 0, last_seen_at: null, last_report: null });
    }
  }

  readonly writeBatch = (batch: WriteBatch): Promise<BatchResult> => {
    this.writes.push(batch);
    const failure = this.failNext;
    this.failNext = undefined;
    const result = failure === undefined ? this.apply(batch) : { messages: [], presence: [] };
    const promise = new Promise<BatchResult>((resolve, reject) => {
      const settle = (fail?: unknown) => (failure !== undefined || fail !== undefined ? reject(failure ?? fail) : resolve(result));
      if (this.hold) this.pending.push({ batch, result, settle });
      else settle();
    });
    const waiters = this.writeWaiters;
    this.writeWaiters = [];
    for (const w of waiters) w();
    return promise;
  };

  readonly ensureDefaultThreads = async (requests: DefaultThreadRequest[]): Promise<number[]> => {
    this.threadRequests.push(requests);
    return requests.map((r) => {
      const existing = [...this.threads.values()].find((t) => t.owner_user_id === r.ownerId && t.peer_user_id === r.peerId && t.is_default === 1);
      return existing?.id ?? this.addThread(r.ownerId, r.peerId, true);
    });
  };

  /** A thread between an owner and a peer, as the chat service would make it. */
  addThread(owner: number, peer: number, isDefault = false): number {
    const id = this.nextThreadId++;
    this.threads.set(id, {
      id,
      owner_user_id: owner,
      peer_user_id: peer,
      channel_kind: 'agent_direct',
      title: 't',
      summary: '',
      is_pinned: 0,
      is_default: isDefault ? 1 : 0,
      archived_at: null,
      last_message_at: null,
      created_at: '',
      updated_at: '',
    });
    return id;
  }

  /** Resolves when writeBatch has been called `count` times in all. */
  async writesPosted(count: number): Promise<void> {
    while (this.writes.length < count) await new Promise<void>((resolve) => this.writeWaiters.push(resolve));
  }

  private apply(batch: WriteBatch): BatchResult {
    const messages = batch.messages.map((m): StoredMessage => {
      const key = m.local_id === null ? undefined : `${m.sender_id}\u0000${m.local_id}`;
      const earlier = key === undefined ? undefined : this.byLocalId.get(key);
      if (earlier) return { ...earlier, duplicate: true };
      const stored = { id: this.nextMessageId++, created_at: m.created_at, conversation_id: m.conversation_id, duplicate: false };
      if (key !== undefined) this.byLocalId.set(key, stored);
      return stored;
    });
    const presence = batch.presence.flatMap(({ userId, patch }) => {
      const row = this.presenceUsers.get(userId);
      if (!row) return [];
      Object.assign(row, patch);
      return [{ ...row }];
    });
    return { messages, presence };
  }
}

/** A clock the test moves: ISO time from a fixed start. */
export function testClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  const clock = () => new Date(now).toISOString();
  return Object.assign(clock, { advance: (ms: number) => void (now += ms) });
}

export type Answer = { to: string; accepted: Accepted } | { to: string; error: HubError; input: MessageInput };

/** A pipeline over fakes; `log` lists deliveries and answers in the order they happened. */
export function pipelineHarness(options: { writeDepth?: number; latest?: Map<string, number>; known?: Principal[]; maxQueuedBytes?: number } = {}) {
  const store = new FakeStore(options.writeDepth);
  const known = new Map((options.known ?? Object.values(users)).map((u) => [u.id, u]));
  const latest = options.latest ?? new Map<string, number>();
  const clock = testClock();
  const batches: Delivery[][] = [];
  const answers: Answer[] = [];
  const log: string[] = [];
  let rounds = 0;
  const deps: PipelineDeps = {
    store,
    threads: { findById: async (id) => store.threads.get(id) },
    chat: { latestConversation: async (human, machine) => latest.get(`${human}:${machine}`) },
    directory: { peek: (id) => known.get(id), load: async () => undefined },
    clock,
    logger: pino({ level: 'silent' }),
    deliver: (deliveries) => {
      batches.push(deliveries);
      log.push(`deliver ${deliveries.map((d) => `${d.type}${d.id === undefined ? '' : `#${d.id}`}`).join(' ')}`);
    },
    round: (fn) => {
      rounds++;
      fn();
    },
    maxQueuedBytes: options.maxQueuedBytes,
  };
  const pipeline = createPipeline(deps);

  /** An origin named `to` that records its answer. */
  const origin = (to: string): Origin => ({
    accepted: (accepted) => {
      answers.push({ to, accepted });
      log.push(`accepted ${to}${accepted.stored ? ` #${accepted.stored.id}${accepted.stored.duplicate ? ' duplicate' : ''}` : ''}`);
    },
    rejected: (error, input) => {
      answers.push({ to, error, input });
      log.push(`rejected ${to} ${error.kind}`);
    },
  });

  return {
    store,
    clock,
    pipeline,
    batches,
    answers,
    log,
    get rounds() {
      return rounds;
    },
    /** Queues a message whose origin is named `to`. */
    send(sender: Principal, input: MessageInput, to: string, bytes?: number): void {
      pipeline.submit(sender, input, origin(to), bytes);
    },
    answerOf(to: string): Answer {
      const found = answers.find((a) => a.to === to);
      if (!found) throw new Error(`no answer for ${to}`);
      return found;
    },
    /** Every delivered frame, across batches, in order. */
    get delivered(): Delivery[] {
      return batches.flat();
    },
  };
}
