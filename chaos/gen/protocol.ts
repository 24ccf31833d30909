// The calls the chaos orchestrator makes into its generator processes, and what they answer.

export interface AckersConnectParams {
  /** Socket URL of each agent (its api_token), without `since`. */
  agentUrls: string[];
  /** Socket URL of each human (a JWT); the human resumes with `&since=<last id seen>` after a drop. */
  humanUrls: string[];
  humanIds: number[];
}

export interface AckersRunParams {
  tag: string;
  /** Frames each agent keeps unacknowledged. */
  window: number;
  payloadBytes: number;
  /** No agent sends more than this many frames. */
  maxPerAgent: number;
  /** Set: a frame answered with `unavailable` is sent again after this many ms (as the hub's own client does). */
  resendUnavailableMs?: number;
}

export interface AckersStatus {
  /** Agents whose socket is open (after a restart: back). */
  agentsOpen: number;
  humansOpen: number;
  sent: number;
  acked: number;
  /** Close codes the sockets saw, counted. */
  closes: Record<string, number>;
  errors: number;
  errorSamples: string[];
  /** ERROR frames with code `unavailable`, and when the first and the last came (epoch ms). */
  unavailable: number;
  firstUnavailableAt?: number;
  lastUnavailableAt?: number;
}

export interface AckersDrainResult extends AckersStatus {
  /** Frames still unacknowledged when the drain gave up. */
  unacked: number;
}

export interface ResendResult {
  /** ACKed frames sent again with their local_id. */
  resent: number;
  /** Answered with the id of the first ACK. */
  sameId: number;
  differentId: number;
  unanswered: number;
}

export interface HumansResult {
  /** ACKed frames addressed to a human. */
  expected: number;
  /** Of those, never received (live or in a resume replay). */
  missing: number;
  duplicates: number;
  /** Received with a lower id than one received before on the same human. */
  outOfOrder: number;
  resumes: number;
  samples: string[];
  /** Per human with a gap: each connection's since and the ids it received. */
  connections: string[];
}

/** The acknowledgement ledger: every local_id acknowledged, with the id of its first ACK. */
export interface Ledger {
  sent: number;
  acked: Array<[localId: string, id: number]>;
}
