// The outbound side of one socket, in three roles: the endpoint the router delivers to
// (ConnectionOutlet), the origin that answers the sender (ACK, echo, ERROR, and a close that waits for
// the answers still owed: `closeWhenAnswered`), and a socket of the delivery round (BatchedSocket:
// frames queued in a round go out corked once). What it guards:
// - the outbound buffer: a socket above the soft bound (WS_MAX_BUFFERED_BYTES) for the grace period,
//   or past the hard bound at any moment, is cut off as a slow consumer (its frames are stored; it
//   resumes with `since`), so one slow reader never holds memory or delays anyone else; the grace lets
//   a healthy reader absorb one large batch;
// - the read window: no more than a window of frames goes out unread; past it frames wait, a ping
//   probes the reader, and each pong proves reading and grows the window (see READ_WINDOW_BYTES); a
//   ping's wait counts only the time the hub could have read the pong (not its own loop's holds);
// - a resume replay: live frames are held back while it runs and sent after it, minus those the
//   replay already sent.
import type uWS from 'uWebSockets.js';
import type { ConnectionOutlet } from '../actors/connection.js';
import { type HubError } from '../errors.js';
import type { LoopWatch } from './loopWatch.js';
import type { WsMeter } from './metrics.js';
import { ackFrame, errorFrame } from '../protocol/frames.js';
import { isMachineRole } from '../protocol/roles.js';
import { PresenceBatch } from './presenceBatch.js';
import type { BatchedSocket, SendBatch } from './sendBatch.js';
import type { Accepted, MessageInput, Origin, Principal } from '../delivery/types.js';
import { CloseCode, type FrameErrorCode } from '../protocol/errors.js';

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
  /** How long a client may leave `hardBytes` unread with a ping unanswered before it counts as stalled. */
  stallMs: number;
}

export interface SocketOutletOptions {
  ws: uWS.WebSocket<unknown>;
  /** The connection's key (its number in logs and inspection). */
  key: number;
  user: Principal;
  bounds: BufferBounds;
  events: OutletEvents;
  /** The send rounds the pipeline delivers in (the socket corks once per round). */
  batch: SendBatch;
  /** A resume replay runs first: live frames are held back until it ends. */
  resuming: boolean;
  /** PRESENCE changes go out in batches (the socket asked with `presence=batched`). */
  presenceBatched?: boolean;
  /** When the credential check began (revocations after it still apply). */
  authenticatedAt: number;
  meter: WsMeter;
  /** How long the hub's own loop was held: not counted against a ping (see `probeStalled`). */
  loop: Pick<LoopWatch, 'heldMs'>;
}

/**
 * Bytes a client may have unread before further frames wait for its pong: writing to a reader that
 * stopped costs as much CPU as writing to one that reads, so a thousand stalled dashboards would
 * triple a fan-out's work until they are found out; kept back, a frame costs an array slot. A ping
 * goes once a quarter of the window is unread, so a reader keeps writing without waiting.
 *
 * The window starts small and doubles with each pong, as TCP's slow start does: a socket that never
 * reads (a tab frozen as it opened) costs 8 KiB of writes before it is held back, and a reader
 * reaches the full window after four round trips.
 */
export const READ_WINDOW_BYTES = 128 * 1024;
const READ_WINDOW_START_BYTES = 8 * 1024;

const byteCount = (texts: readonly string[]) => texts.reduce((sum, text) => sum + text.length, 0);

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
  /** Cut off as a slow consumer, its close still to come (closes are paced): nothing more is written. */
  private cut = false;
  private slowTimer: NodeJS.Timeout | undefined;
  private drainWaiters: Array<() => void> = [];
  /** Frames of this socket handed to the pipeline and not answered yet (ACK, echo or ERROR). */
  private unanswered = 0;
  /** A close asked for once every frame already handed over is answered (abuse closes). */
  private closeAfterAnswers: { code: number; reason: string; errorCode: FrameErrorCode; timer: NodeJS.Timeout } | undefined;
  /** Frames sent and cut-offs, for inspection. */
  sent = 0;
  /** The close code the hub ended this socket with (undefined until it does). */
  endCode: number | undefined;
  /** Bytes handed to the socket so far, and how many of them the client has shown it read. */
  private sentBytes = 0;
  private readBytes = 0;
  /**
   * The ping in flight: when it went out, the loop watch's reading then (`held`), and how many bytes
   * had been sent before it.
   */
  private probe: { at: number; held: number; bytes: number; tag: string } | undefined;
  private probes = 0;
  /** The read window now (see READ_WINDOW_BYTES): grows from the start size with each pong. */
  private window = READ_WINDOW_START_BYTES;
  /** Frames kept back past the read window, in order, and their size. */
  private windowed: string[] = [];
  private windowedBytes = 0;

  private readonly ws: uWS.WebSocket<unknown>;
  readonly key: number;
  readonly user: Principal;
  private readonly bounds: BufferBounds;
  private readonly events: OutletEvents;
  private readonly batch: SendBatch;
  readonly authenticatedAt: number;
  private readonly meter: WsMeter;
  private readonly loop: Pick<LoopWatch, 'heldMs'>;
  /** Set only on a socket that asked for PRESENCE in batches (the router looks for it). */
  readonly deliverPresence?: (agentId: number, text: string) => void;
  private readonly presenceBatch?: PresenceBatch;

  constructor(options: SocketOutletOptions) {
    this.ws = options.ws;
    this.key = options.key;
    this.user = options.user;
    this.bounds = options.bounds;
    this.events = options.events;
    this.batch = options.batch;
    this.authenticatedAt = options.authenticatedAt;
    this.meter = options.meter;
    this.loop = options.loop;
    this.held = options.resuming ? [] : null;
    if (options.presenceBatched) {
      // Sent from a timer, outside any delivery round: one round of its own, so it is corked.
      const batch = new PresenceBatch((text) => this.batch.run(() => this.deliver(text)));
      this.presenceBatch = batch;
      this.deliverPresence = (agentId, text) => batch.add(agentId, text);
    }
  }

  get closed(): boolean {
    return this.ended;
  }

  /** True once a close is pending: frames that arrive now are not taken. */
  get closing(): boolean {
    return this.closeAfterAnswers !== undefined || this.ended || this.cut;
  }

  /** The ERROR that answers a frame arriving while a close is pending. */
  get closingError(): { code: FrameErrorCode; message: string } {
    const pending = this.closeAfterAnswers;
    return { code: pending?.errorCode ?? 'unavailable', message: `the connection is closing (${pending?.reason ?? 'closed'}): this frame was not stored` };
  }

  /** The edge hands one of this socket's frames to the pipeline, which will answer it. */
  handedOver(): void {
    this.unanswered++;
  }

  /**
   * Closes once every frame already handed to the pipeline is answered, so a client closed for abuse
   * still hears about everything that was stored (and resends only what was not), or after
   * `maxWaitMs` if the store is stuck.
   */
  closeWhenAnswered(code: number, reason: string, maxWaitMs: number, errorCode: FrameErrorCode): void {
    if (this.closing) return;
    const timer = setTimeout(() => this.finishClose(), maxWaitMs);
    timer.unref();
    this.closeAfterAnswers = { code, reason, errorCode, timer };
    if (this.unanswered === 0) this.finishClose();
  }

  private answered(): void {
    this.unanswered--;
    if (this.unanswered === 0 && this.closeAfterAnswers) this.finishClose();
  }

  private finishClose(): void {
    const pending = this.closeAfterAnswers;
    if (!pending || this.ended) return;
    clearTimeout(pending.timer);
    this.events.close(pending.code, pending.reason);
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
    if (this.ended || this.cut) return false;
    // Past the read window, frames wait (as references to the strings every recipient shares) for the
    // client to show it read what it has; once one waits, every later one does, to keep the order.
    if (this.windowed.length > 0 || this.sentBytes - this.readBytes >= this.window) return this.wait(text);
    if (this.batch.active) {
      if (this.queued.push(text) === 1) this.batch.enlist(this);
      return true;
    }
    return this.checkBuffer(this.ws.send(text, false), 1, text.length);
  }

  flushQueued(): void {
    const texts = this.queued;
    this.queued = [];
    if (this.ended || this.cut || texts.length === 0) return;
    this.checkBuffer(this.writeCorked(texts), texts.length, byteCount(texts));
  }

  /** Writes `texts` with one cork (one system call); the last send status, stopping at a drop. */
  private writeCorked(texts: readonly string[]): number {
    let status = 1;
    this.ws.cork(() => {
      for (const text of texts) {
        status = this.ws.send(text, false);
        if (status === DROPPED) break;
      }
    });
    return status;
  }

  /** Applies the buffer bounds after a send; false when the socket was cut off. */
  private checkBuffer(status: number, frames: number, bytes: number): boolean {
    this.sent += frames;
    this.sentBytes += bytes;
    const buffered = this.ws.getBufferedAmount();
    if (status === DROPPED || buffered > this.bounds.hardBytes || this.stalled()) {
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

  /**
   * Whether the client has stopped reading. The outbound buffer only grows once the kernel's socket
   * buffers are full, which on a fast link takes megabytes per socket; a thousand stalled readers
   * would hold gigabytes of kernel memory and slow every socket of the machine before any of them
   * passed WS_MAX_BUFFERED_BYTES here. So reading is measured directly: once a quarter of the read
   * window went out since the last proof of reading, a ping goes too, and its pong (sent by the client's
   * WebSocket stack when it reads up to the ping) proves everything before it was read. A client
   * that leaves more than WS_MAX_BUFFERED_BYTES unread and its ping unanswered for `stallMs` is cut off.
   */
  private stalled(): boolean {
    const unread = this.sentBytes - this.readBytes;
    if (!this.probe) {
      if (unread >= this.window / 4) this.sendProbe();
      return false;
    }
    return unread > this.bounds.hardBytes && this.probeStalled(this.probe);
  }

  /**
   * Whether a ping has waited longer than `stallMs` while the hub could have read its pong: its age
   * less the time the hub's own loop was held since it went out (a pong that arrived meanwhile sat
   * unread in the kernel, and a held hub must not cut off the readers it kept waiting). A hold still
   * under way counts, so a delivery in the very run that held the loop does not judge by it either.
   */
  private probeStalled(probe: { at: number; held: number }): boolean {
    const age = performance.now() - probe.at;
    // The loop watch is read only once the age alone would do (this runs for every frame that waits).
    return age > this.bounds.stallMs && age - (this.loop.heldMs() - probe.held) > this.bounds.stallMs;
  }

  /** uWS pong callback: the client read everything sent before the ping it answers. */
  ponged(message: ArrayBuffer): void {
    if (!this.probe || Buffer.from(message).toString('latin1') !== this.probe.tag) return;
    this.readBytes = this.probe.bytes;
    this.probe = undefined;
    if (this.window < READ_WINDOW_BYTES) this.window *= 2;
    this.releaseWindowed();
  }

  /** Keeps a frame back until the client reads; a client that does not is cut off. */
  private wait(text: string): boolean {
    this.windowed.push(text);
    this.windowedBytes += text.length;
    if (!this.probe) this.sendProbe();
    if (this.windowedBytes > this.bounds.hardBytes || this.probeStalled(this.probe!)) {
      this.cutOff();
      return false;
    }
    return true;
  }

  /** Writes the frames kept back that fit the read window again (after a pong). */
  private releaseWindowed(): void {
    if (this.ended || this.cut || this.windowed.length === 0) return;
    const texts: string[] = [];
    let bytes = 0;
    while (this.windowed.length > 0 && this.sentBytes + bytes - this.readBytes < this.window) {
      const text = this.windowed.shift()!;
      texts.push(text);
      bytes += text.length;
    }
    this.windowedBytes -= bytes;
    if (this.checkBuffer(this.writeCorked(texts), texts.length, bytes) && this.windowed.length > 0 && !this.probe) this.sendProbe();
    if (!this.congested) this.releaseWaiters();
  }

  private sendProbe(): void {
    const tag = String(++this.probes);
    this.probe = { at: performance.now(), held: this.loop.heldMs(), bytes: this.sentBytes, tag };
    this.ws.ping(tag);
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
    return !this.ended && !this.cut && (this.windowed.length > 0 || this.ws.getBufferedAmount() > this.bounds.softBytes / 2);
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
    // Answers queued in the current send round, and frames waiting for the read window, go out
    // before the close frame (a client closed for abuse still gets every ACK); a slow consumer's
    // waiting frames are dropped with it (it resumes with `since`, resends what was not ACKed).
    this.flushQueued();
    if (code !== CloseCode.slowConsumer && this.windowed.length > 0) {
      this.writeCorked(this.windowed);
      this.windowed = [];
      this.windowedBytes = 0;
    }
    this.ended = true;
    this.presenceBatch?.stop();
    this.endCode = code;
    if (code === CloseCode.slowConsumer && this.ws.getBufferedAmount() > 0) {
      // The reader is not reading: a close frame would wait behind its backlog, holding it until
      // the socket times out. Drop the connection now to free the memory; the hub still records
      // 4011, and the client sees the line end and resumes with `since`.
      this.ws.close();
    } else {
      this.ws.end(code, reason);
    }
    this.stopSlowTimer();
    this.releaseWaiters();
  }

  /** uWS close callback: the socket object must not be touched after this. */
  markClosed(): void {
    this.ended = true;
    this.presenceBatch?.stop();
    if (this.closeAfterAnswers) clearTimeout(this.closeAfterAnswers.timer);
    this.dropPending();
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
    this.answered();
  }

  rejected(error: HubError, input: MessageInput): void {
    this.sendError(error.kind, error.message, input.local_id);
    this.answered();
  }

  /**
   * Stops writing to a slow consumer at once and asks for its close, which comes a little later:
   * closes are paced (see closePacer.ts). What it has not been sent is dropped; it resumes with `since`.
   */
  private cutOff(): void {
    if (this.ended || this.cut) return;
    this.cut = true;
    this.dropPending();
    this.events.slow();
  }

  /** Frees every frame not written yet, and whoever waits for the socket to drain: nothing more will be. */
  private dropPending(): void {
    this.queued = [];
    this.windowed = [];
    this.windowedBytes = 0;
    this.held = null;
    this.heldBytes = 0;
    this.stopSlowTimer();
    this.releaseWaiters();
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
