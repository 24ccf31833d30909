// Metrics of the persist-then-deliver pipeline, recorded once per group commit (never per
// message): batch size, commit latency, delivery latency (commit done → frames handed to sockets),
// failed commits, and the write queue's depth, read at scrape time.
import type { MetricsFactory } from '../metrics/families.js';

export interface PipelineMeter {
  /** Reads the queue depth at every scrape. */
  watchDepth(read: () => number): void;
  /** One batch handed to the store: items (messages and presence changes) and seconds to commit. */
  committed(items: number, seconds: number): void;
  /** Seconds from the end of a commit until its frames were handed to the sockets. */
  delivered(seconds: number): void;
  /** A batch whose commit failed (its senders were told to retry). */
  failed(): void;
  /** Reads the bytes of messages taken and not yet settled at every scrape. */
  watchQueuedBytes(read: () => number): void;
  /** A message refused before it was queued: the queue held WRITE_QUEUE_MAX_BYTES. */
  refused(): void;
}

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createPipelineMeter(factory: MetricsFactory): PipelineMeter {
  let depth = () => 0;
  const gauge = factory.gauge({
    name: 'hub_pipeline_queue_depth',
    help: 'Messages and presence changes waiting for the next group commit',
    collect: () => gauge.set(depth()),
  });
  const size = factory.histogram({
    name: 'hub_pipeline_batch_size',
    help: 'Items per group commit',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
  });
  const commit = factory.histogram({ name: 'hub_pipeline_commit_seconds', help: 'Time to commit one batch to the store', buckets: SECONDS });
  const delivery = factory.histogram({
    name: 'hub_pipeline_delivery_seconds',
    help: 'Time from a batch being stored until its frames were handed to the sockets',
    buckets: [0.0001, 0.00025, ...SECONDS],
  });
  let queuedBytes = () => 0;
  const bytes = factory.gauge({
    name: 'hub_pipeline_queued_bytes',
    help: 'Bytes of messages taken and not yet committed or refused (bounded by WRITE_QUEUE_MAX_BYTES)',
    collect: () => bytes.set(queuedBytes()),
  });
  const refusals = factory.counter({
    name: 'hub_pipeline_refused_total',
    help: 'Messages refused with unavailable (503) before they were queued: the write queue held WRITE_QUEUE_MAX_BYTES',
  });
  const failures = factory.counter({ name: 'hub_pipeline_failed_commits_total', help: 'Batches the store refused; their senders were told to send again' });
  return {
    watchDepth(read) {
      depth = read;
    },
    committed(items, seconds) {
      size.observe(items);
      commit.observe(seconds);
    },
    delivered(seconds) {
      delivery.observe(seconds);
    },
    failed() {
      failures.inc();
    },
    watchQueuedBytes(read) {
      queuedBytes = read;
    },
    refused() {
      refusals.inc();
    },
  };
}
