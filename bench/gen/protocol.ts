// The calls the orchestrator makes into each generator process, and what they answer.
import type { Percentiles } from '../lib/stats.js';

export interface ConnectParams {
  urls: string[];
  concurrency: number;
}

export interface ConnectResult {
  connected: number;
  errors: string[];
  ms: number;
}

/** Agents: each socket sends CHAT to the human ids in `targets`, round-robin. */
export interface AgentsConnectParams extends ConnectParams {
  targets: number[];
}

export type RunMode =
  /** Closed loop: each agent keeps at most `window` frames unacknowledged. */
  | { kind: 'closed'; window: number }
  /** Open loop: `rate` frames per second in total, on a schedule, whatever the replies. */
  | { kind: 'open'; rate: number };

export interface AgentsRunParams {
  tag: string;
  mode: RunMode;
  durationMs: number;
  /** How long to wait for outstanding ACKs after the last send. */
  drainMs: number;
  payloadBytes: number;
}

export interface AgentsRunResult {
  /** Frames sent by each agent (its sequence numbers are 0..sent-1). */
  sent: number[];
  total: number;
  acked: number;
  /** ERROR frames received (any one is a failure of the run). */
  errors: number;
  errorSamples: string[];
  startedAt: number;
  endedAt: number;
  /** Open loop: how far the schedule fell behind at worst (the generator itself was too slow). */
  maxScheduleLagMs: number;
  closedSockets: number;
}

export interface HumansArmParams {
  tag: string;
  agents: number;
}

export interface HumansSettleParams {
  /** Per agent, how many frames it sent: every (agent, seq < sent) must arrive exactly once. */
  expected: number[];
  /** Throughput window (epoch ms): receipts inside it count towards msg/s. */
  windowStart: number;
  windowEnd: number;
  timeoutMs: number;
}

export interface HumansSettleResult {
  received: number;
  unique: number;
  duplicates: number;
  missing: number;
  /** local_ids that were never sent (wrong tag, agent or sequence). */
  unexpected: number;
  samples: string[];
  inWindow: number;
  /** Receipts in each second of the window, to show a rate that drifts as the database grows. */
  perSecond: number[];
  latency: Percentiles;
  /** Frames of other types (PRESENCE...), ignored. */
  otherFrames: number;
  closedSockets: number;
  /** Receipt time of the last frame (epoch ms). */
  lastAt: number;
}

export interface IdleConnectParams extends ConnectParams {
  /** Source addresses to rotate through, so 10k sockets never run out of ephemeral ports. */
  localAddresses: string[];
  /** Each socket sends one SYSTEM_LOG announce with a local_id and waits for its ACK. */
  announce: boolean;
  ackTimeoutMs: number;
}

export interface IdleConnectResult extends ConnectResult {
  startedAt: number;
  endedAt: number;
  acked: number;
}

export interface IdleStatus {
  open: number;
  closed: number;
}
