// A streamed reply (wire.md §5): CHAT_STREAM chunks, then one CHAT with the whole text (the one the
// hub stores), then CHAT_STREAM_END, all with one stream_id. Chunks are relayed, not stored: a reader
// who misses some still gets the full text in the final CHAT.
import type { Receipt } from './outbox.js';

export interface StreamTarget {
  target_id: number;
  conversation_id?: number;
  stream_id: string;
}

type StreamFrame = ({ type: 'CHAT' } | { type: 'CHAT_STREAM' } | { type: 'CHAT_STREAM_END' }) & { payload: string } & StreamTarget;

export interface StreamSender {
  send(frame: StreamFrame): Promise<Receipt>;
}

export class StreamWriter {
  private text = '';
  private ended = false;

  constructor(
    private readonly sender: StreamSender,
    readonly target: StreamTarget,
  ) {}

  get streamId(): string {
    return this.target.stream_id;
  }

  /** Sends one chunk; resolves once it is written to the socket (chunks get no answer from the hub). */
  write(chunk: string): Promise<Receipt> {
    if (this.ended) return Promise.reject(new Error(`stream ${this.target.stream_id} has ended`));
    this.text += chunk;
    return this.sender.send({ ...this.target, type: 'CHAT_STREAM', payload: chunk });
  }

  /**
   * Sends the final CHAT (the chunks so far, or `finalText` when given) and the end marker; resolves
   * with the stored CHAT's receipt.
   */
  async end(finalText?: string): Promise<Receipt> {
    if (this.ended) throw new Error(`stream ${this.target.stream_id} has ended`);
    this.ended = true;
    const stored = this.sender.send({ ...this.target, type: 'CHAT', payload: finalText ?? this.text });
    const end = this.sender.send({ ...this.target, type: 'CHAT_STREAM_END', payload: '' });
    const [receipt] = await Promise.all([stored, end]);
    return receipt;
  }
}
