// Committing batches, with their outcomes handled in batch order. A writer that commits strictly
// in posting order is handed the next batches while this one commits (up to `writeDepth` batches
// and `writeBudget` rows and bytes), so preparing and committing overlap and the SQLite thread can
// commit all that waited as one group; each outcome still waits for the one before it, so
// deliveries and answers never change order even when a later commit is reported first.
import type { Logger } from 'pino';
import { batchCost, type BatchResult, type WriteBatch } from '../store/batchWriter.js';
import type { Store } from '../store/db.js';
import type { PipelineMeter } from './metrics.js';

export type CommitOutcome = { result: BatchResult } | { err: unknown };

/** What the commit of one batch is handed: its write, and what runs once it is settled, in order. */
export interface CommitJob {
  write: WriteBatch;
  /** Items of the batch, as the meter counts them. */
  size: number;
  /** False when there is nothing to write: the outcome is an empty result, in its turn. */
  needsWrite: boolean;
  /** Runs in batch order; `committedAt` is when the commit ended (performance.now()). */
  complete(outcome: CommitOutcome, committedAt: number): void;
}

export function createCommitOrder(deps: {
  store: Pick<Store, 'writeBatch' | 'writeDepth'> & Partial<Pick<Store, 'writeBudget'>>;
  meter: Pick<PipelineMeter, 'committed' | 'failed'>;
  logger: Pick<Logger, 'error'>;
}) {
  const { store, meter, logger } = deps;
  /** Completion of the newest batch handed to the store; each waits for the one before it. */
  let completing: Promise<void> = Promise.resolve();
  const outstanding: Array<{ completion: Promise<void>; rows: number; bytes: number }> = [];
  const inFlight = { rows: 0, bytes: 0 };
  const budget = store.writeBudget ?? { rows: Infinity, bytes: Infinity };
  const full = () =>
    outstanding.length >= Math.max(1, store.writeDepth) || (outstanding.length > 0 && (inFlight.rows >= budget.rows || inFlight.bytes >= budget.bytes));

  return {
    /** Hands one batch to the store; resolves once fewer than `writeDepth` batches are in flight. */
    async commit(job: CommitJob): Promise<void> {
      const writeStarted = performance.now();
      let committedAt = writeStarted;
      const write: Promise<BatchResult> = job.needsWrite ? store.writeBatch(job.write) : Promise.resolve({ messages: [], presence: [] });
      const previous = completing;
      const completion = write
        .then(
          (result): CommitOutcome => {
            committedAt = performance.now();
            if (job.needsWrite) meter.committed(job.size, (committedAt - writeStarted) / 1000);
            return { result };
          },
          (err: unknown): CommitOutcome => {
            meter.failed();
            return { err };
          },
        )
        .then(async (outcome) => {
          await previous;
          try {
            job.complete(outcome, committedAt);
          } catch (err) {
            logger.error({ err }, 'delivering a committed batch failed');
          }
        });
      completing = completion;
      const cost = job.needsWrite ? batchCost(job.write) : { rows: 0, bytes: 0 };
      outstanding.push({ completion, ...cost });
      inFlight.rows += cost.rows;
      inFlight.bytes += cost.bytes;
      while (full()) {
        const oldest = outstanding.shift()!;
        await oldest.completion;
        inFlight.rows -= oldest.rows;
        inFlight.bytes -= oldest.bytes;
      }
    },

    /** Settles once the newest batch committed so far is completed (compare it to see if more came). */
    get last(): Promise<void> {
      return completing;
    },
  };
}
export type CommitOrder = ReturnType<typeof createCommitOrder>;
