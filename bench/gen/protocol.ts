// The calls the orchestrator makes into each generator process, and what they answer.
import type { Transport } from '../lib/servers.js';
import type { Percentiles } from '../lib/stats.js';

export interface ConnectParams {
  urls: string[];
  concurrency: number;
  transport: Transport;
}

export interface ConnectResult {
  connected: number;
  errors: string[];
  ms: number;
}

/**
 * What the senders send: targeted `CHAT` to the user ids in `targets` (round-robin), or untargeted
 * `SYSTEM_LOG`, which the hub delivers to every human socket (the dashboards).
 */
export type SendKind = { frame: 'chat'; targets: number[] } | { frame: 'log' };

export interface SendersConnectParams extends ConnectParams {
  send: SendKind;
}

export type RunMode =
  /** Closed loop: each sender keeps at most `window` frames unacknowledged. */
  | { kind: 'closed'; window: number }
  /** Open loop: `rate` frames per second in total, on a schedule, whatever the replies. */
  | { kind: 'open'; rate: number };

export interface SendersRunParams {
  tag: string;
  mode: RunMode;
  durationMs: number;
  /** No more than this many frames in the run, however fast the server answers. */
  maxMessages: number;
  /** How long to wait for outstanding ACKs after the last send. */
  drainMs: number;
  payloadBytes: number;
}

export interface SendersRunResult {
  /** Frames sent by each sender (its sequence numbers are 0..sent-1). */
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

export interface ReceiversArmParams {
  tag: string;
  /** Frame type that carries the run's messages (CHAT or SYSTEM_LOG); others are counted apart. */
  type: string;
  senders: number;
  /**
   * True: every socket must receive every message (a broadcast). False: each message must reach
   * exactly one socket, any of them (targeted chat: the target's).
   */
  everySocket: boolean;
  /** Sockets whose receipts give latency samples (all when absent); a broadcast needs only a few. */
  latencySockets?: number;
}

export interface ReceiversSettleParams {
  /** Per sender, how many frames it sent: every (sender, seq < sent) must arrive exactly once. */
  expected: number[];
  /** When the senders started (epoch ms). */
  startedAt: number;
  /** Throughput window (epoch ms): receipts inside it count towards the rate. */
  windowStart: number;
  windowEnd: number;
  timeoutMs: number;
}

export interface ReceiversSettleResult {
  /** Receipts of the run's type, on all sockets. */
  received: number;
  duplicates: number;
  missing: number;
  /** local_ids that were never sent (wrong tag, sender or sequence). */
  unexpected: number;
  samples: string[];
  inWindow: number;
  /** Receipts in each second of the window, to show a rate that drifts as the database grows. */
  perSecond: number[];
  latency: Percentiles;
  /** Median latency of the messages sent in each second of the run: rising means a backlog builds up. */
  latencyP50PerSecond: number[];
  /** Frames of other types (PRESENCE...), ignored. */
  otherFrames: number;
  closedSockets: number;
  /** Sockets the hub cut off in this run as slow consumers (4011), on a broadcast. */
  cutOffSockets: number;
  /** Deliveries those sockets did not get (their clients would resume them with `since`). */
  missingOnCutOff: number;
}

export interface IdleConnectParams extends Omit<ConnectParams, 'transport'> {
  /** Source addresses to rotate through, so many sockets never run out of ephemeral ports. */
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
  /** Announces acknowledged more than once. */
  duplicateAcks: number;
}

export interface HttpRunParams {
  baseUrl: string;
  /** What to request: a login, the agent list, or a stored dashboard message. */
  request: 'login' | 'agents' | 'message';
  /** Bearer credential (agents list, messages); login uses `usernames`/`password`. */
  bearer?: string;
  /** Appended to the request's path (the HTTP reference names its caller with `?uid=`). */
  query?: string;
  /**
   * Login: the names, in turn, as many as connections (the hub checks at most four logins of one
   * name from one address at once, and answers more with 429).
   */
  usernames?: string[];
  password?: string;
  /** Messages: the dashboard socket that must receive each posted message exactly once. */
  watchUrl?: string;
  tag: string;
  connections: number;
  durationMs: number;
  /** Upper bound on requests (autocannon stops at whichever comes first). */
  maxRequests: number;
  drainMs: number;
}

export interface HttpRunResult {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  requestsPerSecond: number;
  latency: { p50: number; p99: number; p999: number; max: number; mean: number };
  durationMs: number;
  /** Messages only: seen on the dashboard socket, those seen more than once, and answered 201 but never seen. */
  delivered?: number;
  duplicates?: number;
  missing?: number;
  samples: string[];
}

/** The fake language model (gen/fakeModel.ts): every answer streams `deltas` deltas, `delayMs` apart. */
export interface FakeModelParams {
  deltas: number;
  delayMs: number;
}

export interface FakeModelStats {
  requests: number;
  /** Each answer's stream, request read → last byte written: the model's own share of an answer. */
  streamMs: Percentiles;
}

export interface ButlerRunParams {
  /** Thread ids per socket (one conversation each). */
  threads: number[][];
  deltas: number;
  durationMs: number;
  /** How long answers still streaming at the end may take. */
  drainMs: number;
}

export interface ButlerRunResult {
  asked: number;
  completed: number;
  startedAt: number;
  endedAt: number;
  /** Model write → asker receipt, per delta (ms). */
  deltaLatency: number[];
  /** Question sent → end of the answer's stream (ms). */
  answerMs: number[];
  problems: string[];
  problemCount: number;
}

export interface ScaleConnectParams {
  /** The hub nodes' ports (127.0.0.1), in node order. */
  ports: number[];
  tokens: string[];
  /** The node each token connects to first (an index into `ports`). */
  homes: number[];
  /** Source addresses, rotated per socket, so no address runs out of ephemeral ports. */
  localAddresses: string[];
  concurrency: number;
  /** No new socket is opened after this time (epoch ms): the run reports how far it got instead. */
  deadline: number;
  /** Reconnect as the client library does (its backoff) to another node when a socket drops. */
  reconnect: { initialMs: number; maxMs: number; floorMs: number };
}

export interface ScaleConnectResult extends ConnectResult {
  startedAt: number;
  endedAt: number;
}

export interface ScaleStatus {
  open: number;
  /** Open sockets per node (by index into `ports`). */
  perNode: number[];
  /** Sockets that dropped and are waiting to reconnect or reconnecting. */
  down: number;
  reconnects: number;
  /** Failed reconnect attempts (refused, timed out, upgrade refused), with a few examples. */
  failedAttempts: number;
  failures: string[];
  /** When the last dropped socket was open again (epoch ms; 0 if none dropped). */
  lastReconnectAt: number;
  /** Upgrades the hub answered 503 (admission control) among the failed attempts. */
  refusedBusy: number;
}

export interface ScaleChatterParams {
  tag: string;
  /** SYSTEM_LOG frames per second from this generator, each from a random open socket, with a local_id. */
  rate: number;
  durationMs: number;
  /** How long to wait for outstanding ACKs at the end. */
  drainMs: number;
}

export interface ScaleChatterResult {
  sent: number;
  /** local_ids the hub acknowledged: each must be in the store. */
  acked: string[];
  /** Sent on a socket that dropped before its ACK (a client sends those again after reconnecting). */
  unconfirmed: number;
  errors: number;
  errorSamples: string[];
}
