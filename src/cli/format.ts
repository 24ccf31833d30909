// One line per frame for `hub-agent tail`: who, what and the text, as a person scans a log. Stream
// chunks are left out (the final CHAT carries the whole text).
import type { ServerFrame } from '../protocol/serverFrames.js';

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ⏎ ');

function reportText(payload: unknown): string {
  if (typeof payload === 'string') return payload;
  const content = (payload as { content?: unknown }).content;
  return typeof content === 'string' ? content : JSON.stringify(payload);
}

export function formatFrame(frame: ServerFrame): string | undefined {
  switch (frame.type) {
    case 'ACK':
    case 'ERROR':
    case 'CHAT_STREAM':
    case 'CHAT_STREAM_END':
    case 'PRESENCE_BATCH': // the CLI never asks for batches; the client hands a batch's frames on one by one anyway
      return undefined;
    case 'PRESENCE':
      return `${frame.timestamp} PRESENCE ${frame.payload.username} ${frame.payload.status}${frame.payload.last_report ? ` (${oneLine(frame.payload.last_report)})` : ''}`;
    default: {
      const head = `${frame.timestamp} #${frame.id ?? '-'} ${frame.type} ${frame.sender_name}${frame.target_id !== undefined ? ` → ${frame.target_id}` : ''}`;
      if (frame.type === 'CHAT') return `${head}: ${oneLine(frame.payload)}`;
      if (frame.type === 'SYSTEM_LOG') return `${head} ${frame.payload.level}: ${oneLine(frame.payload.content)}`;
      if (frame.type === 'BUTLER_AGENT_MESSAGE') return `${head}: ${oneLine(String(frame.payload.payload))}`;
      return `${head}: ${oneLine(reportText(frame.payload))}`;
    }
  }
}
