// Frames to the hub: each gets a local_id (unless it brings its own), is validated with the schema
// the hub applies and held to the hub's frame size, then waits in the outbox until the hub answers
// it — or, for what the hub does not answer, until it is written.
import { clientFrame, isChatType, isTelemetryType, type ClientFrame } from '../protocol/frames.js';
import { formatZodError } from '../protocol/validation.js';
import { ClientStoppedError, FrameRefusedError } from './clientErrors.js';
import type { CredentialInfo } from './credential.js';
import type { Outbox, Receipt } from './outbox.js';

/** What `send` takes: a client frame without its local_id (one is assigned) — or with one of your own. */
export type OutgoingFrame = ClientFrame extends infer F ? (F extends ClientFrame ? Omit<F, 'local_id'> & { local_id?: string } : never) : never;

export interface OutboundDeps {
  outbox: Outbox;
  /** Largest frame the client sends, in UTF-8 bytes. */
  maxFrameBytes: number;
  /** Who this client is, as far as its credential tells. */
  identity(): CredentialInfo;
  /** The client is closing or has stopped: it takes no more frames. */
  closed(): boolean;
  /** Writes what the outbox holds due, if the socket is open. */
  flush(): void;
}

export class Outbound {
  private readonly localPrefix = `${globalThis.crypto.randomUUID().slice(0, 13)}-`;
  private localCounter = 0;

  constructor(private readonly deps: OutboundDeps) {}

  send(frame: OutgoingFrame): Promise<Receipt> {
    const { maxFrameBytes } = this.deps;
    if (this.deps.closed()) return Promise.reject(new ClientStoppedError('the client is closed'));
    const withId = { ...frame, local_id: frame.local_id ?? this.nextLocalId() };
    const parsed = clientFrame.safeParse(withId);
    if (!parsed.success) return Promise.reject(new FrameRefusedError('invalid_payload', formatZodError(parsed.error, withId)));
    const text = JSON.stringify(withId);
    const bytes = text.length * 3 <= maxFrameBytes ? text.length : new TextEncoder().encode(text).byteLength;
    if (bytes > maxFrameBytes) return Promise.reject(new FrameRefusedError('frame_too_large', `frame is ${bytes} bytes; the limit is ${maxFrameBytes}`));
    const receipt = this.deps.outbox.add(withId.local_id, text, this.expectsAnswer(parsed.data));
    this.deps.flush();
    return receipt;
  }

  /** A fresh local id: this client's random prefix and a counter. */
  nextLocalId(): string {
    return `${this.localPrefix}${++this.localCounter}`;
  }

  private expectsAnswer(frame: ClientFrame): boolean {
    const stored = frame.type === 'CHAT' || isTelemetryType(frame.type);
    if (!stored) return false;
    const who = this.deps.identity();
    if (who.kind === 'machine') return true;
    // A human is answered with the echo of the frame, which a targeted report does not get.
    return isChatType(frame.type) || frame.target_id === undefined || frame.target_id === who.userId;
  }
}
