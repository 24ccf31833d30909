// One streamed answer from Butler (wire.md §5 "Streams"): CHAT_STREAM chunks, then the full text
// as one stored CHAT with the same stream_id, then CHAT_STREAM_END, all in the asker's
// conversation. Deltas are coalesced: the first goes out at once (the asker sees Butler start),
// later ones at most once per `flushMs`, so a fast model does not cost a frame per token.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { BUTLER_STREAM_PREFIX } from '../protocol/butler.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { Principal } from '../delivery/types.js';

export interface ReplyTarget {
  to: Principal;
  conversationId: number | null;
}

export interface ReplyStreamDeps {
  pipeline: Pipeline;
  butler: Principal;
  logger: Logger;
  flushMs: number;
  maxChars: number;
}

export interface ReplyStream {
  readonly streamId: string;
  /** Everything written so far. */
  readonly text: string;
  readonly truncated: boolean;
  /** Adds text; false once the reply reached its size cap (the rest is dropped). */
  write(delta: string): boolean;
  /** Sends what is pending, the stored final CHAT (with `note` appended) and the end marker. */
  finish(note?: string): Promise<void>;
}

export const newStreamId = () => `${BUTLER_STREAM_PREFIX}${randomUUID()}`;

export function openReplyStream(deps: ReplyStreamDeps, target: ReplyTarget): ReplyStream {
  const { pipeline, butler, flushMs, maxChars } = deps;
  const streamId = newStreamId();
  const envelope = {
    target_id: target.to.id,
    conversation_id: target.conversationId ?? undefined,
    stream_id: streamId,
  };
  let text = '';
  let pending = '';
  let truncated = false;
  let finished = false;
  let lastFlush = -Infinity;
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    lastFlush = performance.now();
    if (pending.length === 0) return;
    pipeline.submit(butler, { type: 'CHAT_STREAM', payload: pending, ...envelope });
    pending = '';
  };

  return {
    streamId,
    get text() {
      return text;
    },
    get truncated() {
      return truncated;
    },

    write(delta) {
      if (finished || truncated || delta.length === 0) return !truncated;
      const room = maxChars - text.length;
      if (delta.length > room) {
        delta = delta.slice(0, Math.max(0, room));
        truncated = true;
      }
      text += delta;
      pending += delta;
      const wait = lastFlush + flushMs - performance.now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
      return !truncated;
    },

    async finish(note) {
      if (finished) return;
      finished = true;
      flush();
      let final = text;
      if (truncated) final += `\n\n[The reply was cut off at ${maxChars} characters.]`;
      if (note) final = final.length > 0 ? `${final}\n\n${note}` : note;
      try {
        await pipeline.post(butler, { type: 'CHAT', payload: final, ...envelope });
      } catch (err) {
        deps.logger.warn({ err, streamId, to: target.to.id }, 'Butler could not store its answer');
      }
      pipeline.submit(butler, { type: 'CHAT_STREAM_END', payload: '', ...envelope });
    },
  };
}
