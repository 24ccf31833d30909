// Committed batches in the visibility order. Each batch this node commits is published once to every
// node, and every node hands batches to its own sockets in the commit order (gate.ts): a batch waits
// for the earlier ones, and what the bus did not bring (a lost message, an outage) is read from the
// store (gap fill) and handed over as live delivery would have. While Redis is away the store is read
// on every tick instead, and for a while after it is back (the others reconnect later).
import type { Logger } from 'pino';
import { audienceOf } from '../../delivery/audience.js';
import type { Handoff } from '../../delivery/deliver.js';
import type { Delivery } from '../../delivery/types.js';
import { monitorFrame, toMessageFrame, type FrameSource } from '../../protocol/frames.js';
import type { ClusterRepo } from '../../store/repositories/cluster.js';
import type { MessageRow } from '../../store/schema.js';
import { decodeBatch, encodeBatch, type BatchMessage } from '../bus/wire.js';
import type { ClusterMeter } from '../metrics.js';
import { createOrderGate } from './gate.js';

export interface BatchesDeps {
  nodeId: string;
  repo: Pick<ClusterRepo, 'catchUp' | 'lastCommitted'>;
  meter: Pick<ClusterMeter, 'received' | 'lag' | 'filled'>;
  log: Logger;
  /** Publishes an encoded batch on the batches channel. */
  publish(text: string): void;
  /** Every batch's frames pass here before they are handed over (presence keeps `isOnline` from them). */
  note(deliveries: readonly Delivery[]): void;
  /** How long a batch waits for an earlier one before the gap is read from the store (ms). */
  graceMs?: number;
  /** While Redis is away: how often the store is read for what the other nodes committed (ms). */
  tickMs?: number;
}

/** What the batches drive once the core exists. */
export interface BatchParts {
  /** Hands frames to this node's endpoints (the router's DELIVER). */
  deliver(deliveries: Delivery[]): void;
  /** Runs one delivery round (sockets corked once). */
  round(fn: () => void): void;
  /** Resolves once every batch this node handed to the store so far has been handed off here. */
  settled(): Promise<void>;
}

/** Rows read per query from the store (a full page is followed by the next at once). */
const FILL_PAGE = 1000;
/**
 * After Redis is back, the store is still read on every tick for this long: the other nodes reconnect
 * up to one backoff step (2 s) later, and until they do, what they commit is not on the bus.
 */
export const BUS_SETTLE_MS = 3000;

export function createBatches(deps: BatchesDeps) {
  const { nodeId, repo, meter, log } = deps;
  let parts: BatchParts | undefined;
  const need = (): BatchParts => {
    if (!parts) throw new Error('the cluster node was used before the core was attached');
    return parts;
  };
  /** `last` of this node's newest committed batch: its relays go out after it. */
  let lastOwn = 0;
  let settling: NodeJS.Timeout | undefined;

  const gate = createOrderGate<MessageRow>({
    graceMs: deps.graceMs ?? 500,
    tickMs: deps.tickMs ?? 100,
    pageSize: FILL_PAGE,
    async read(after, limit) {
      const rows = await repo.catchUp(after, limit);
      // Batches of this node committed before the read are offered before its rows are merged.
      await need().settled();
      return rows;
    },
    hand,
    onError: (err) => log.error({ err }, 'handing over what was committed failed'),
  });

  function handOver(batch: BatchMessage, skipUpTo: number): void {
    const deliveries = skipUpTo > 0 ? batch.deliveries.filter((d) => d.id === undefined || d.id > skipUpTo) : batch.deliveries;
    deps.note(deliveries as Delivery[]);
    const { deliver, round } = need();
    if (deliveries.length > 0) round(() => deliver(deliveries as Delivery[]));
    meter.lag(Math.max(0, Date.now() - batch.at) / 1000);
  }

  /** Hands rows read from the store over as live delivery would have (the bus did not bring them). */
  function hand(rows: MessageRow[]): void {
    const deliveries: Delivery[] = rows.map((row) => {
      const source: FrameSource = { ...row, payload: JSON.parse(row.payload) as unknown };
      const audience = audienceOf(row);
      const delivery: Delivery = { type: row.type, text: JSON.stringify(toMessageFrame(source)), audience, senderId: row.sender_id, id: row.id };
      if (audience.monitor) delivery.monitorText = monitorFrame(source);
      return delivery;
    });
    const { deliver, round } = need();
    round(() => deliver(deliveries));
    meter.filled(rows.length);
    // While Redis is away (and just after) this is how every frame of the other nodes arrives: not worth a line each.
    if (gate.state().bus)
      log.info({ from: rows[0]!.id, to: rows[rows.length - 1]!.id, rows: rows.length }, 'handed over from the store what the bus did not bring');
  }

  return {
    gate,

    /** A message opened from the batches channel. */
    receive(text: string): void {
      const batch = decodeBatch(text);
      if (!batch) return log.warn({ bytes: text.length }, 'ignored a batch message that is not one');
      if (batch.node === nodeId) return;
      meter.received('batch', text.length);
      gate.offer({ prev: batch.prev, last: batch.last, run: (skipUpTo) => handOver(batch, skipUpTo) });
    },

    /** The pipeline's seam: publishes each settled batch and hands it over in the visibility order. */
    handoff(batch: Handoff): void {
      const prev = batch.order?.prev ?? lastOwn;
      const last = batch.order?.last ?? lastOwn;
      if (batch.order) lastOwn = Math.max(lastOwn, last);
      deps.note(batch.deliveries);
      if (batch.deliveries.length > 0 || last > prev) deps.publish(encodeBatch(nodeId, prev, last, batch.deliveries));
      gate.offer({ prev, last, run: () => batch.run() });
    },

    /** Starts ordering after the newest commit the store shows. */
    async start(next: BatchParts): Promise<void> {
      parts = next;
      const committed = await repo.lastCommitted();
      lastOwn = committed;
      gate.start(committed);
    },

    /** The ids restarted (development reset): the order starts over. */
    restart(): void {
      gate.restart(0);
      lastOwn = 0;
    },

    /** Reads the store's commit order for batches the bus did not bring. */
    async poll(): Promise<void> {
      try {
        gate.observe(await repo.lastCommitted());
      } catch (err) {
        log.debug({ err }, 'could not read the commit order');
      }
    },

    /** Redis went away: every tick reads the store. */
    down(): void {
      clearTimeout(settling);
      gate.setBus(false);
    },
    /** Redis is back: the bus carries batches again once the others had time to reconnect. */
    up(): void {
      clearTimeout(settling);
      settling = setTimeout(() => gate.setBus(true), BUS_SETTLE_MS).unref();
      // What was said while Redis was away is in the store: the poll catches up.
      void repo.lastCommitted().then(
        (committed) => gate.observe(committed),
        () => undefined,
      );
    },

    stop(): void {
      clearTimeout(settling);
      gate.stop();
    },
  };
}
export type Batches = ReturnType<typeof createBatches>;
