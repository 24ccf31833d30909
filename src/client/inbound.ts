// Frames from the hub: each is validated with the protocol's schemas, answers a frame waiting in the
// outbox (ACK, ERROR, the echo of our own frame), moves the resume cursor unless it was seen before,
// and goes to the typed listeners and the chat dispatch. What does not match the protocol is a
// warning, never an exception.
import { serverFrame, ServerFrameTypes, type FrameOf, type MessageFrameIn, type ServerFrame } from '../protocol/serverFrames.js';
import { formatZodError } from '../protocol/validation.js';
import { FrameRefusedError } from './clientErrors.js';
import type { ChatDispatch } from './chatDispatch.js';
import type { CredentialInfo } from './credential.js';
import type { ResumeCursor } from './cursor.js';
import type { IncomingStreams } from './incomingStreams.js';
import type { Listeners } from './listeners.js';
import type { Outbox } from './outbox.js';
import { frameText } from './transport.js';

export interface InboundDeps {
  outbox: Outbox;
  cursor: ResumeCursor;
  listeners: Listeners;
  chat: ChatDispatch;
  streams: IncomingStreams;
  /** Who this client is, as far as its credential tells. */
  identity(): CredentialInfo;
}

export class Inbound {
  constructor(private readonly deps: InboundDeps) {}

  receive(data: unknown): void {
    const { listeners } = this.deps;
    const text = frameText(data);
    if (text === undefined) return listeners.warn('ignored a binary frame from the hub');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return listeners.warn(`ignored a frame that is not JSON: ${text.slice(0, 80)}`);
    }
    const parsed = serverFrame.safeParse(value);
    if (!parsed.success) return this.ignore(value, parsed.error);
    const frame = parsed.data;
    // A batch (asked for with `presence: 'batched'`) reaches listeners as the PRESENCE frames it holds.
    if (frame.type === 'PRESENCE_BATCH') {
      for (const presence of frame.payload.frames) this.handle(presence);
      return;
    }
    this.handle(frame);
  }

  private handle(frame: Exclude<ServerFrame, { type: 'PRESENCE_BATCH' }>): void {
    const { listeners, outbox, cursor } = this.deps;
    switch (frame.type) {
      case 'ACK':
        outbox.confirm(frame.local_id, { local_id: frame.local_id, id: frame.id, timestamp: frame.timestamp });
        cursor.acked(frame.id);
        break;
      case 'ERROR':
        this.refused(frame);
        break;
      default:
        if (!this.accept(frame)) return;
    }
    this.deps.streams.observe(frame);
    listeners.emit(frame.type, frame as never);
    listeners.emit('frame', frame);
    if (frame.type === 'CHAT') this.deps.chat.dispatch(frame);
  }

  /** Confirms our own echoed frame; drops a frame already seen; moves the cursor. */
  private accept(frame: MessageFrameIn): boolean {
    const { outbox, cursor } = this.deps;
    const self = this.deps.identity().userId;
    const own = self === undefined || frame.sender_id === self;
    if (frame.local_id !== undefined && frame.id !== undefined && own) {
      outbox.confirm(frame.local_id, { local_id: frame.local_id, id: frame.id, timestamp: frame.timestamp });
    }
    if (frame.id === undefined) return true;
    if (cursor.seen(frame.id, frame.type)) return false;
    cursor.advance(frame.id, frame.type);
    return true;
  }

  private refused(frame: FrameOf<'ERROR'>): void {
    const { code, message } = frame.payload;
    // `unavailable`: the hub could not store it; it stays queued and goes again after the ack timeout.
    if (frame.local_id !== undefined && code !== 'unavailable' && this.deps.outbox.refuse(frame.local_id, new FrameRefusedError(code, message))) return;
    this.deps.listeners.warn(`the hub refused a frame${frame.local_id ? ` (${frame.local_id})` : ''}: ${code}: ${message}`);
  }

  private ignore(value: unknown, error: Parameters<typeof formatZodError>[0]): void {
    const type = (value as { type?: unknown } | null)?.type;
    const id = (value as { id?: unknown } | null)?.id;
    // A stored frame we cannot read still moves the cursor: resuming must not ask for it forever.
    if (typeof id === 'number' && Number.isSafeInteger(id) && type !== 'ACK') this.deps.cursor.advance(id, String(type));
    if (typeof type === 'string' && !(ServerFrameTypes as readonly string[]).includes(type)) {
      this.deps.listeners.warn(`ignored a frame of unknown type "${type.slice(0, 64)}"`);
    } else {
      this.deps.listeners.warn(
        `ignored a ${typeof type === 'string' ? type : 'typeless'} frame that does not match the protocol: ${formatZodError(error, value)}`,
      );
    }
  }
}
