// What the edge keeps per socket, typed: nothing is hung on the uWS socket object itself.
import type { ConnectionActor, Session } from '../actors/connection.js';
import type { SocketOutlet } from './outlet.js';
import type { TokenBucket } from './tokenBucket.js';

export interface WsLimits {
  maxFrameBytes: number;
  hardFrameBytes: number;
  rateLimit: number;
  rateBurst: number;
  maxBufferedBytes: number;
  idleTimeoutSeconds: number;
}

export interface SocketData {
  actor: ConnectionActor;
  key: number;
  since: number | undefined;
  /** PRESENCE changes go out in batches (the socket asked with `presence=batched`). */
  presenceBatched: boolean;
  /** When the credential check began (revocations after it still apply). */
  authStartedAt: number;
  /** Set when the upgrade is accepted, so every open socket has one. */
  session?: Session;
  /** Set when the socket opens. */
  outlet?: SocketOutlet;
  /** Frames per second allowed, and warnings left before an abusive client is closed (also in the actor's context). */
  meters: { rate: TokenBucket; badFrames: TokenBucket; rateStrikes: TokenBucket };
}
