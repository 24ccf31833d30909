// The outbound side of one socket: what the router delivers to and what answers the sender (ACK,
// echo, ERROR). It bounds the socket's outbound buffer: a socket that stays above the soft bound
// (WS_MAX_BUFFERED_BYTES) for the grace period, or passes the hard bound at any moment, is cut off
// as a slow consumer (its frames are stored; it resumes with `since`), so one slow reader never
// holds memory or delays anyone else. The grace lets a healthy reader absorb one large batch. During a resume replay, live frames are held back and
// sent after it, minus those the replay already sent.
import type uWS from 'uWebSockets.js';
import type { ConnectionOutlet } from '../actors/connection.js';
import type { FrameErrorCode, HubError } from '../errors.js';
import type { WsMeter } from '../metrics/ws.js';
import { ackFrame, errorFrame } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import type { Principal } from '../services/directory.js';
import type { Accepted, MessageInput, Origin } from '../services/pipeline.js';
import type { BatchedSocket, SendBatch } from './sendBatch.js';

/** uWS send() result: the frame was dropped because the buffer passed uWS's own limit. */
const DROPPED = 2;

export interface OutletEvents {
  /** The buffer passed its bound; the connection must be closed as a slow consumer. */
  slow(): void;
  /** The router asks for a close (revocation, shutdown). */
  close(code: number, reason: string): void;
}

export interface BufferBounds {
  /** Bytes a socket may keep queued for longer than `graceMs`. */
  softBytes: number;
  /** Bytes a socket may never exceed. */
  hardBytes: number;
  graceMs: number;
}

export class SocketOutlet implements ConnectionOutlet, Origin, BatchedSocket {
  private held: Array<{ text: string; id: number | undefined }> | null;
  /** Frames of the current send round, written with one cork when it ends. */
  private queued: string[] = [];
  /**
   * The replay's last id. A batch can be committed (and so replayed) before its live delivery
   * arrives, even after the replay ended; those frames were already sent.
   */
  private replayedUpTo = 0;
  private heldBytes = 0;
  private ended = false;
  private slowTimer: NodeJS.Timeout | undefined;
  private drainWaiters: Array<() => void> = [];
  /** Frames sent and cut-offs, for inspection. */
  sent = 0;

  constructor(
    private readonly ws: uWS.WebSocket<unknown>,
    readonly key: number,
    readonly user: Principal,
    private readonly bounds: BufferBounds,
    private readonly events: OutletEvents,
    private readonly batch: SendBatch,
    resuming: boolean,
    readonly authenticatedAt: number,
    private readonly meter: WsMeter,
  ) {
    this.held = resuming ? [] : null;
  }

  get closed(): boolean {
    return this.ended;
  }

  deliver(text: string, id?: number): void {
    if (id !== undefined && id <= this.replayedUpTo) return;
    if (this.held) {
      this.held.push({ text, id });
      this.heldBytes += text.length;
      if (this.heldBytes > this.bounds.hardBytes) this.cutOff();
      return;
    }
    this.send(text);
  }

  send(text: string): boolean {
    if (this.ended) return false;
    if (this.batch.active) {
      if (this.queued.push(text) === 1) this.batch.enlist(this);
      return true;
    }
    return this.checkBuffer(this.ws.send(text, false));
  }

  flushQueued(): void {
    const texts = this.queued;
    this.queued = [];
    if (this.ended || texts.length === 0) return;
    let status = 1;
    this.ws.cork(() => {
      for (const text of texts) {
        status = this.ws.send(text, false);
        if (status === DROPPED) break;
      }
    });
    this.checkBuffer(status, texts.length);
  }

  /** Applies the buffer bounds after a send; false when the socket was cut off. */
  private checkBuffer(status: number, frames = 1): boolean {
    this.sent += frames;
    const buffered = this.ws.getBufferedAmount();
    if (status === DROPPED || buffered > this.bounds.hardBytes) {
      this.cutOff();
      return false;
    }
    if (buffered > this.bounds.softBytes && !this.slowTimer) {
      this.slowTimer = setTimeout(() => {
        this.slowTimer = undefined;
        if (!this.ended && this.ws.getBufferedAmount() > this.bounds.softBytes) this.cutOff();
      }, this.bounds.graceMs);
      this.slowTimer.unref();
    }
    return true;
  }

  /** Sends an ERROR frame (and counts it by code). */
  sendError(code: FrameErrorCode, message: string, localId?: string): void {
    const text = errorFrame(code, message, localId);
    this.meter.error(code, text);
    this.send(text);
  }

  endReplay(lastReplayedId: number): void {
    this.replayedUpTo = lastReplayedId;
    const held = this.held ?? [];
    this.held = null;
    this.heldBytes = 0;
    for (const { text, id } of held) if (id === undefined || id > lastReplayedId) this.send(text);
  }

  get congested(): boolean {
    return !this.ended && this.ws.getBufferedAmount() > this.bounds.softBytes / 2;
  }

  whenWritable(): Promise<void> {
    if (!this.congested) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** uWS drain callback. */
  drained(): void {
    const buffered = this.ws.getBufferedAmount();
    if (buffered <= this.bounds.softBytes) this.stopSlowTimer();
    if (buffered <= this.bounds.softBytes / 2) this.releaseWaiters();
  }

  close(code: number, reason: string): void {
    this.events.close(code, reason);
  }

  end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.ws.end(code, reason);
    this.stopSlowTimer();
    this.releaseWaiters();
  }

  /** uWS close callback: the socket object must not be touched after this. */
  markClosed(): void {
    this.ended = true;
    this.held = null;
    this.queued = [];
    this.stopSlowTimer();
    this.releaseWaiters();
  }

  // Origin: answers to this socket's own frames.
  accepted(result: Accepted): void {
    const localId = result.frame.local_id;
    if (isMachineRole(this.user.role)) {
      if (localId !== undefined && result.stored) {
        const ack = ackFrame(localId, result.stored.id, result.frame.timestamp);
        this.meter.sent('ACK', 1, ack);
        this.send(ack);
      }
    } else if (result.stored?.duplicate) {
      // A human's repeat is not delivered again; its own socket still gets the echo it waits for.
      this.meter.sent(result.frame.type, 1, result.text);
      this.send(result.text);
    }
  }

  rejected(error: HubError, input: MessageInput): void {
    this.sendError(error.kind, error.message, input.local_id);
  }

  private cutOff(): void {
    if (this.ended) return;
    this.events.slow();
  }

  private stopSlowTimer(): void {
    clearTimeout(this.slowTimer);
    this.slowTimer = undefined;
  }

  private releaseWaiters(): void {
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
