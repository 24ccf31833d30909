// Reading Butler's answers off a test socket: a stream is CHAT_STREAM chunks, one stored CHAT and
// CHAT_STREAM_END with one stream_id (wire.md §5); these helpers take the whole sequence in order.
import type { Frame, WsClient } from './wsClient.js';

export const BUTLER_ID = 2;

export interface Answer {
  streamId: string;
  /** The text of each CHAT_STREAM chunk, in order. */
  chunks: string[];
  /** The stored final CHAT. */
  final: Frame;
  end: Frame;
  /** Every frame of the stream, in the order it arrived. */
  frames: Frame[];
  text: string;
}

const STREAM_TYPES = new Set(['CHAT_STREAM', 'CHAT', 'CHAT_STREAM_END']);

/** The next complete answer from Butler on this socket (optionally in one conversation). */
export async function nextAnswer(client: WsClient, options: { conversationId?: number; timeoutMs?: number } = {}): Promise<Answer> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const mine = (f: Frame) =>
    f.sender_id === BUTLER_ID && STREAM_TYPES.has(f.type) && (options.conversationId === undefined || f.conversation_id === options.conversationId);
  const first = await client.nextWhere(mine, "the first frame of Butler's answer", timeoutMs);
  const streamId = first.stream_id!;
  const frames = [first];
  while (frames.at(-1)!.type !== 'CHAT_STREAM_END') {
    frames.push(await client.nextWhere((f) => mine(f) && f.stream_id === streamId, `the rest of Butler's stream ${streamId}`, timeoutMs));
  }
  const final = frames.find((f) => f.type === 'CHAT');
  if (!final) throw new Error(`Butler's stream ${streamId} ended without its final CHAT: ${JSON.stringify(frames)}`);
  return {
    streamId,
    chunks: frames.filter((f) => f.type === 'CHAT_STREAM').map((f) => f.payload as string),
    final,
    end: frames.at(-1)!,
    frames,
    text: final.payload as string,
  };
}

/** Sends a CHAT to Butler and returns its echo (which carries the stored id and conversation). */
export async function askButler(client: WsClient, text: string, extra: Record<string, unknown> = {}): Promise<Frame> {
  const localId = `ask-${Math.random().toString(36).slice(2)}`;
  client.send({ type: 'CHAT', target_id: BUTLER_ID, payload: text, local_id: localId, ...extra });
  return client.nextWhere((f) => f.type === 'CHAT' && f.local_id === localId && f.id !== undefined, `the echo of "${text}"`);
}
