// The streams this client is receiving (wire.md §5 "Streams"): open from a CHAT_STREAM chunk until
// the CHAT with its stream_id or its CHAT_STREAM_END. Chunks and the end are relayed, never stored, so
// a connection that drops mid-stream cannot get them back on resume (only the final CHAT is replayed,
// once it is stored), and a hub that died mid-stream never sends that stream's end at all. So when the
// connection drops, each stream still open is reported once as `streamInterrupted`: a reader stops
// showing it as being written. Its final CHAT may still come (replayed, or live from a sender that
// goes on); it ends the stream as usual.
import type { ServerFrame } from '../protocol/serverFrames.js';
import type { InterruptedStream, Listeners } from './listeners.js';

/** Open streams held at most (a sender that never ends its streams cannot grow the client without bound). */
const MAX_OPEN = 10_000;

export class IncomingStreams {
  /** By sender and stream id (two senders may use one stream id). */
  private readonly open = new Map<string, InterruptedStream>();

  constructor(
    private readonly listeners: Listeners,
    private readonly maxOpen = MAX_OPEN,
  ) {}

  /** Follows a frame the client accepted. */
  observe(frame: ServerFrame): void {
    if (frame.type !== 'CHAT_STREAM' && frame.type !== 'CHAT' && frame.type !== 'CHAT_STREAM_END') return;
    if (frame.stream_id === undefined) return;
    const key = `${frame.sender_id}:${frame.stream_id}`;
    if (frame.type !== 'CHAT_STREAM') {
      this.open.delete(key);
      return;
    }
    if (this.open.has(key)) return;
    if (this.open.size >= this.maxOpen) this.open.delete(this.open.keys().next().value!);
    const stream: InterruptedStream = { stream_id: frame.stream_id, sender_id: frame.sender_id };
    if (frame.conversation_id !== undefined) stream.conversation_id = frame.conversation_id;
    this.open.set(key, stream);
  }

  /** The connection dropped: every open stream is reported, and forgotten (a chunk after the reconnect opens it again). */
  dropped(): void {
    const interrupted = [...this.open.values()];
    this.open.clear();
    for (const stream of interrupted) this.listeners.emit('streamInterrupted', stream);
  }
}
