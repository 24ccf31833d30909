// Butler's metrics: conversations active (read at scrape time), turns answered by kind, language-
// model calls by outcome with their latency, calls streaming and waiting under
// BUTLER_MAX_CONCURRENCY (read at scrape time), and authorization requests by outcome.
import type { MetricsFactory } from '../metrics/families.js';

export interface ButlerMeter {
  /** Reads the number of live conversations at every scrape. */
  watchConversations(read: () => number): void;
  /** Reads the model calls streaming and waiting for a slot at every scrape. */
  watchModelCalls(read: () => { active: number; queued: number }): void;
  turn(kind: 'message' | 'decision'): void;
  /** One model call (a streamed step): how it ended and how long it took. */
  modelCall(outcome: 'ok' | 'error' | 'aborted', seconds: number): void;
  authorization(status: 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED'): void;
}

export function createButlerMeter(factory: MetricsFactory): ButlerMeter {
  let conversations = () => 0;
  let modelCalls = () => ({ active: 0, queued: 0 });
  const inFlight = factory.gauge({
    name: 'hub_butler_model_calls_in_flight',
    help: 'Language-model calls streaming now (at most BUTLER_MAX_CONCURRENCY)',
    collect: () => inFlight.set(modelCalls().active),
  });
  const queueDepth = factory.gauge({
    name: 'hub_butler_model_queue_depth',
    help: 'Language-model calls waiting for a slot under BUTLER_MAX_CONCURRENCY',
    collect: () => queueDepth.set(modelCalls().queued),
  });
  const active = factory.gauge({
    name: 'hub_butler_conversations_active',
    help: "Butler's live conversations (one per asker and thread)",
    collect: () => active.set(conversations()),
  });
  const turns = factory.counter({
    name: 'hub_butler_turns_total',
    help: 'Turns Butler answered: messages, and outcomes of authorization requests',
    labels: { kind: ['message', 'decision'] },
  });
  const calls = factory.counter({
    name: 'hub_butler_model_calls_total',
    help: 'Language-model calls by outcome (error: failed, timed out or broke off)',
    labels: { outcome: ['ok', 'error', 'aborted'] },
  });
  const latency = factory.histogram({
    name: 'hub_butler_model_seconds',
    help: 'Time of one streamed language-model call',
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
  });
  const requests = factory.counter({
    name: 'hub_butler_authorizations_total',
    help: 'Authorization requests: PENDING when made, then their outcome',
    labels: { status: ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'] },
  });
  return {
    watchConversations(read) {
      conversations = read;
    },
    watchModelCalls(read) {
      modelCalls = read;
    },
    turn(kind) {
      turns.labels({ kind }).inc();
    },
    modelCall(outcome, seconds) {
      calls.labels({ outcome }).inc();
      latency.observe(seconds);
    },
    authorization(status) {
      requests.labels({ status }).inc();
    },
  };
}
