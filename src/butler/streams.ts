// Butler's open streams, kept where a successor can read them (the ledger port). The leader records
// each answer it streams (where it goes, the text so far) and forgets it when the stream ends, so
// that when the leader dies the next one ends the stream with what was said and a note, instead of
// the asker waiting for an end that never comes. A single node has no successor: its ledger keeps
// nothing and there is never anything to end.
import type { Logger } from 'pino';
import type { Ledger } from '../delivery/ledger.js';
import type { Pipeline } from '../delivery/pipeline.js';
import type { Principal } from '../delivery/types.js';

/** The ledger's name for Butler's open streams (a key on Redis in cluster mode). */
export const STREAMS_LEDGER = 'butler-streams';

interface StreamMeta {
  targetId: number;
  conversationId: number | null;
}

/** Butler's `submit`, recording its stream frames in the ledger before they go out. */
export function recordingSubmit(ledger: Ledger, butler: Principal, submit: Pipeline['submit']): Pipeline['submit'] {
  return (sender, input, origin, bytes) => {
    if (sender.id === butler.id && input.stream_id && (input.type === 'CHAT_STREAM' || input.type === 'CHAT_STREAM_END')) {
      if (input.type === 'CHAT_STREAM_END') ledger.remove(input.stream_id);
      else {
        const meta: StreamMeta = { targetId: input.target_id ?? 0, conversationId: input.conversation_id ?? null };
        ledger.append(input.stream_id, JSON.stringify(meta), typeof input.payload === 'string' ? input.payload : '');
      }
    }
    submit(sender, input, origin, bytes);
  };
}

/** Answers the previous leader was streaming when it stopped: ended with what they said and a note. */
export async function endOrphanedStreams(deps: { ledger: Ledger; pipeline: Pick<Pipeline, 'submit'>; butler: Principal; log: Logger }): Promise<void> {
  const { log } = deps;
  let orphans: Awaited<ReturnType<Ledger['take']>> = [];
  try {
    orphans = await deps.ledger.take();
  } catch (err) {
    return log.warn({ err }, "could not read the previous leader's open streams");
  }
  for (const o of orphans) {
    const { targetId, conversationId } = JSON.parse(o.meta) as StreamMeta;
    const envelope = { target_id: targetId, conversation_id: conversationId ?? undefined, stream_id: o.id };
    const note = '[This answer was cut off: the hub node writing it stopped. Please ask again.]';
    deps.pipeline.submit(deps.butler, { type: 'CHAT', payload: o.text ? `${o.text}\n\n${note}` : note, ...envelope });
    deps.pipeline.submit(deps.butler, { type: 'CHAT_STREAM_END', payload: '', ...envelope });
  }
  if (orphans.length > 0) log.warn({ streams: orphans.length }, 'ended the answers the previous leader was streaming when it stopped');
}
