// The searchable columns of a stored message (`level`, `content`), computed once as the pipeline
// resolves it: the filters of `GET /api/messages` read them, and the ingest route answers with them.
import { isTelemetryType } from '../protocol/frames.js';
import { LogLevels } from '../protocol/messages.js';
import { storableText } from '../store/repositories/like.js';

/** A payload without a text `content` is searchable by its JSON, cut at this many characters. */
const MAX_CONTENT = 4096;

export interface Summary {
  level: string | null;
  content: string;
}

/** The searchable text and level of a message: telemetry defaults to INFO, chat has no level. */
export function summarise(type: string, payload: unknown): Summary {
  const fallbackLevel = isTelemetryType(type) ? 'INFO' : null;
  if (typeof payload === 'string') return { level: fallbackLevel, content: storableText(payload) };
  const record = (payload ?? {}) as Record<string, unknown>;
  const level = typeof record['level'] === 'string' && (LogLevels as readonly string[]).includes(record['level']) ? record['level'] : fallbackLevel;
  const content = typeof record['content'] === 'string' ? record['content'] : JSON.stringify(payload).slice(0, MAX_CONTENT);
  return { level, content: storableText(content) };
}
