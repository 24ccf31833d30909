// One line of a Butler↔agent conversation, from either source (a row of the history route or a
// live BUTLER_AGENT_MESSAGE), and the merge that keeps one copy of each in the store's order.
// Import-free (shapes are structural), so unit tests load it without the dashboard's build.

/** Butler's command to an agent, Butler's other messages (questions, answers), or the agent's. */
export type EntryKind = 'directive' | 'butler' | 'agent';

export interface MonitorEntry {
  /** `id:<message id>`; a copy without an id is keyed by its content. */
  key: string;
  id: number | undefined;
  agentId: number;
  senderId: number;
  senderName: string;
  senderRole: string;
  kind: EntryKind;
  /** What was said; for a directive, the command without its `[DIRECTIVE]` prefix. */
  text: string;
  timestamp: string;
  /** A directive's stream id; the agent's answer to it carries the same. */
  streamId?: string;
}

/** A row of `GET /api/chat/butler-agent/:agent_id` (ChatMessageView). */
export interface HistoryRow {
  id: number;
  sender_id: number;
  sender_name: string;
  sender_role: string;
  payload: string;
  timestamp: string;
  stream_id?: string;
}

/** The payload of a BUTLER_AGENT_MESSAGE frame. */
export interface MonitorPayload {
  agent_id: number | null;
  type: string;
  sender_id: number;
  sender_role: string;
  sender_name: string;
  payload: unknown;
  timestamp: string;
  id?: number;
  stream_id?: string;
}

const DIRECTIVE = '[DIRECTIVE]';

function entry(
  agentId: number,
  id: number | undefined,
  sender: { id: number; name: string; role: string },
  raw: string,
  timestamp: string,
  streamId: string | undefined,
): MonitorEntry {
  const directive = sender.role === 'BUTLER' && raw.startsWith(DIRECTIVE);
  const kind: EntryKind = directive ? 'directive' : sender.role === 'BUTLER' ? 'butler' : 'agent';
  const text = directive ? raw.slice(DIRECTIVE.length).trim() : raw;
  const key = id !== undefined ? `id:${id}` : `at:${timestamp}:${sender.id}:${raw}`;
  const made: MonitorEntry = { key, id, agentId, senderId: sender.id, senderName: sender.name, senderRole: sender.role, kind, text, timestamp };
  if (streamId !== undefined) made.streamId = streamId;
  return made;
}

export function fromHistory(agentId: number, row: HistoryRow): MonitorEntry {
  return entry(agentId, row.id, { id: row.sender_id, name: row.sender_name, role: row.sender_role }, row.payload, row.timestamp, row.stream_id);
}

/** A live copy; undefined when it names no agent (nothing to file it under). */
export function fromMonitorPayload(p: MonitorPayload): MonitorEntry | undefined {
  if (p.agent_id === null) return undefined;
  const raw = typeof p.payload === 'string' ? p.payload : JSON.stringify(p.payload);
  return entry(p.agent_id, p.id, { id: p.sender_id, name: p.sender_name, role: p.sender_role }, raw, p.timestamp, p.stream_id);
}

/** Store order: by message id; by time where a copy has no id. */
export function compareEntries(a: MonitorEntry, b: MonitorEntry): number {
  if (a.id !== undefined && b.id !== undefined) return a.id - b.id;
  return a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0;
}

/**
 * Both lists as one, oldest first, each message once (a resumed socket, a history page and the live
 * copy may all carry the same one). Returns `base` itself when `incoming` adds nothing, so a store
 * holding it does not tell its subscribers about a change that is none.
 */
export function mergeEntries(base: readonly MonitorEntry[], incoming: readonly MonitorEntry[]): readonly MonitorEntry[] {
  const keys = new Set(base.map((e) => e.key));
  const added = incoming.filter((e) => !keys.has(e.key) && (keys.add(e.key), true));
  if (added.length === 0) return base;
  const last = base.at(-1);
  // The usual case, a live message newer than everything held, needs no sort.
  if (added.length === 1 && (!last || compareEntries(last, added[0]!) <= 0)) return [...base, added[0]!];
  return [...base, ...added].sort(compareEntries);
}

/** `before_id` for the page before everything held: the smallest id, or undefined when none has one. */
export function oldestId(entries: readonly MonitorEntry[]): number | undefined {
  let oldest: number | undefined;
  for (const e of entries) if (e.id !== undefined && (oldest === undefined || e.id < oldest)) oldest = e.id;
  return oldest;
}

/** The directive each of the agent's answers answers, by the answer's key. */
export function answeredDirectives(entries: readonly MonitorEntry[]): ReadonlyMap<string, MonitorEntry> {
  const directives = new Map<string, MonitorEntry>();
  const answered = new Map<string, MonitorEntry>();
  for (const e of entries) {
    if (e.streamId === undefined) continue;
    if (e.kind === 'directive') directives.set(e.streamId, e);
    else if (e.kind === 'agent') {
      const directive = directives.get(e.streamId);
      if (directive) answered.set(e.key, directive);
    }
  }
  return answered;
}
