// After a batch's commit: what it delivers (one list for the router, in batch order) and how each
// origin is answered. Each message frame is built and serialised once; the same object and string
// go to every recipient and to the sender's answer. A batch the store refused rejects each message
// it would have stored, while its relays (never meant to be stored) still go out.
import type { Logger } from 'pino';
import { Errors, type HubError } from '../errors.js';
import { monitorFrame, presenceFrame, toMessageFrame, type MessageFrame } from '../protocol/frames.js';
import type { BatchResult, CommitMark, PresenceRow, StoredMessage } from '../store/batchWriter.js';
import type { Clock } from '../clock.js';
import type { Batch } from './batch.js';
import type { CommitOutcome } from './commit.js';
import type { PipelineMeter } from './metrics.js';
import type { Accepted, Audience, Delivery, Message, MessageInput, Origin } from './types.js';

/** One answer to one origin, given once the batch's deliveries are handed over. */
export type Answer = { origin: Origin; accepted: Accepted } | { origin: Origin; rejected: HubError; input: MessageInput };

export interface Settled {
  deliveries: Delivery[];
  answers: Answer[];
}

/** The delivery of one message frame; `recordOnly` keeps it from in-hub endpoints. */
export function toDelivery(message: Message, audience: Audience, frame: MessageFrame, text: string, recordOnly = false): Delivery {
  const delivery: Delivery = { type: message.type, text, frame, audience, senderId: message.sender_id };
  if (recordOnly) delivery.socketsOnly = true;
  if (message.id !== undefined) delivery.id = message.id;
  if (audience.monitor) delivery.monitorText = monitorFrame(message);
  return delivery;
}

/** Agents' stored presence as PRESENCE frames for the humans' sockets (only agents have presence). */
export function presenceDeliveries(rows: readonly PresenceRow[], timestamp: string): Delivery[] {
  const deliveries: Delivery[] = [];
  for (const row of rows) {
    if (row.role !== 'AGENT') continue;
    const text = presenceFrame(
      { user_id: row.id, username: row.username, status: row.status, online: row.online === 1, last_seen_at: row.last_seen_at, last_report: row.last_report },
      timestamp,
    );
    deliveries.push({ type: 'PRESENCE', text, audience: { broadcast: 'humans', echo: false, exceptSender: false, monitor: false }, senderId: row.id });
  }
  return deliveries;
}

const rejections = (batch: Batch): Answer[] =>
  batch.rejected.flatMap(([item, error]) => (item.origin ? [{ origin: item.origin, rejected: error, input: item.input }] : []));

/**
 * A committed batch: every message takes its stored id (a repeat of a local_id also the original's
 * time and thread, and it is not delivered again: its sender only hears the original's id).
 */
export function settle(batch: Batch, result: BatchResult, timestamp: string): Settled {
  const stored = result.messages;
  const deliveries: Delivery[] = [];
  const answers: Answer[] = [];
  for (const r of batch.ready) {
    const row: StoredMessage | undefined = r.sameAs ? { ...stored[r.sameAs.row]!, duplicate: true } : r.row >= 0 ? stored[r.row]! : undefined;
    if (row) {
      r.message.id = row.id;
      if (row.duplicate) {
        r.message.created_at = row.created_at;
        r.message.conversation_id = row.conversation_id;
      }
    }
    const frame = toMessageFrame(r.message);
    const text = JSON.stringify(frame);
    if (!row?.duplicate) deliveries.push(toDelivery(r.message, r.audience, frame, text, r.item.input.recordOnly));
    if (r.item.origin) answers.push({ origin: r.item.origin, accepted: { frame, text, message: r.message, stored: row } });
  }
  deliveries.push(...presenceDeliveries(result.presence, timestamp));
  answers.push(...rejections(batch));
  return { deliveries, answers };
}

/**
 * A batch the store refused: each message it would have stored is rejected (its sender sends it
 * again), refusals keep their reasons, and the relays go out and are answered as accepted.
 */
export function refuse(batch: Batch): { rejected: Answer[]; relays: Delivery[]; relayed: Answer[] } {
  const error = Errors.unavailable('the message could not be stored; send it again');
  const rejected: Answer[] = [];
  for (const r of batch.ready) if (r.item.store && r.item.origin) rejected.push({ origin: r.item.origin, rejected: error, input: r.item.input });
  rejected.push(...rejections(batch));
  const relays: Delivery[] = [];
  const relayed: Answer[] = [];
  for (const r of batch.ready) {
    if (r.item.store) continue;
    const frame = toMessageFrame(r.message);
    const text = JSON.stringify(frame);
    relays.push(toDelivery(r.message, r.audience, frame, text, r.item.input.recordOnly));
    if (r.item.origin) relayed.push({ origin: r.item.origin, accepted: { frame, text, message: r.message } });
  }
  return { rejected, relays, relayed };
}

export function answer(a: Answer): void {
  if ('accepted' in a) a.origin.accepted(a.accepted);
  else a.origin.rejected(a.rejected, a.input);
}

/**
 * A settled batch on its way out: its place in the commit order (an ordered writer's), its frames,
 * and `run`, which hands them to the router and answers the origins. One node runs it at once; a
 * cluster node publishes the frames to the others and runs it when the visibility order allows.
 */
export interface Handoff {
  order?: CommitMark;
  deliveries: readonly Delivery[];
  run(): void;
}

export interface DeliverDeps {
  /** The router's inbox: one call per batch. */
  deliver(deliveries: Delivery[]): void;
  /** Cluster mode: where settled batches go instead of running at once. */
  handoff?: (batch: Handoff) => void;
  /** Runs one delivery round (the edge corks each socket once per round). */
  round(fn: () => void): void;
  clock: Clock;
  logger: Pick<Logger, 'error'>;
  meter: Pick<PipelineMeter, 'delivered'>;
}

/** Hands a settled batch to the router and answers its origins, in order. */
export function createDeliver(deps: DeliverDeps) {
  const { logger, meter } = deps;
  const handoff = deps.handoff ?? ((batch: Handoff) => batch.run());
  return function complete(batch: Batch, outcome: CommitOutcome, committedAt: number): void {
    if ('err' in outcome) {
      logger.error({ err: outcome.err, messages: batch.write.messages.length }, 'storing a batch of messages failed; senders are told to retry');
      const { rejected, relays, relayed } = refuse(batch);
      rejected.forEach(answer);
      handoff({
        deliveries: relays,
        run: () => {
          deps.deliver(relays);
          relayed.forEach(answer);
        },
      });
      return;
    }
    const { deliveries, answers } = settle(batch, outcome.result, deps.clock());
    handoff({
      order: outcome.result.order,
      deliveries,
      run: () => {
        deps.round(() => {
          if (deliveries.length > 0) deps.deliver(deliveries);
          answers.forEach(answer);
        });
        // The round has written every socket's frames: persisted → sent.
        if (deliveries.length > 0) meter.delivered((performance.now() - committedAt) / 1000);
      },
    });
  };
}
