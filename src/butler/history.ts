// What the model remembers of a conversation comes from the store, so a restart does not make
// Butler forget: the newest `window` rows verbatim, and up to `window` rows before them folded
// into one short summary (a line per turn, cut to a fixed length). The summary costs no extra
// model call and is the same every time for the same rows.
import type { ChatRepo } from '../store/repositories/chat.js';
import type { MessageRow } from '../store/schema.js';
import type { ModelMessage } from './model.js';
import type { Asker } from './tools.js';

const SUMMARY_LINE_CHARS = 160;

export interface HistoryDeps {
  chat: ChatRepo;
  butlerId: number;
  window: number;
}

function textOf(row: MessageRow): string {
  const payload = JSON.parse(row.payload) as unknown;
  if (row.type === 'AUTH_REQUEST' && payload && typeof payload === 'object') {
    const p = payload as { command?: string; target_agent_name?: string; status?: string };
    return `[authorization request to run "${p.command}" on ${p.target_agent_name}: ${p.status}]`;
  }
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function createHistory(deps: HistoryDeps) {
  const { chat, butlerId, window } = deps;

  /** The rows of this asker's conversation with Butler before message `beforeId`, oldest first. */
  async function rows(asker: Asker, beforeId: number): Promise<MessageRow[]> {
    const page = { limit: window * 2, beforeId };
    if (asker.conversationId !== null) return chat.inConversation(asker.conversationId, ['CHAT', 'AUTH_REQUEST'], page);
    return chat.between(asker.principal.id, butlerId, ['CHAT'], page);
  }

  return {
    async load(asker: Asker, beforeId: number): Promise<ModelMessage[]> {
      const all = (await rows(asker, beforeId)).filter((r) => r.sender_id === butlerId || r.sender_id === asker.principal.id);
      const older = all.slice(0, Math.max(0, all.length - window));
      const recent = all.slice(older.length);
      const messages: ModelMessage[] = [];
      if (older.length > 0) {
        const lines = older.map((r) => `- ${r.sender_id === butlerId ? 'Butler' : r.sender_name}: ${clip(textOf(r).replace(/\s+/g, ' '), SUMMARY_LINE_CHARS)}`);
        messages.push({ role: 'system', content: `Summary of earlier turns of this conversation:\n${lines.join('\n')}` });
      }
      for (const row of recent) {
        messages.push(row.sender_id === butlerId ? { role: 'assistant', content: textOf(row) } : { role: 'user', content: textOf(row) });
      }
      return messages;
    },
  };
}
export type History = ReturnType<typeof createHistory>;
