// What the model remembers of a conversation comes from the store, so a restart does not make
// Butler forget: the newest `window` rows verbatim, and up to `window` rows before them folded
// into one short summary (a line per turn, cut to a fixed length). The summary costs no extra
// model call and is the same every time for the same rows. The rows come from Butler's memory of
// the conversation (memory.ts: read once, then kept up to date) when it holds them, else from the store.
import type { ChatRepo } from '../store/repositories/chat.js';
import { fromStoredRow, HISTORY_TYPES, textOfRow, type ConversationMemory, type MemoryRow } from './memory.js';
import type { ModelMessage } from './model.js';
import type { Asker } from './tools.js';

const SUMMARY_LINE_CHARS = 160;

export interface HistoryDeps {
  chat: ChatRepo;
  butlerId: number;
  window: number;
  /** Without one, every turn reads the store. */
  memory?: ConversationMemory;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function createHistory(deps: HistoryDeps) {
  const { chat, butlerId, window, memory } = deps;

  /** The rows of this asker's conversation with Butler before message `beforeId`, oldest first. */
  async function rows(asker: Asker, beforeId: number): Promise<MemoryRow[]> {
    const remembered = await memory?.before(asker, beforeId);
    if (remembered) return remembered;
    const page = { limit: window * 2, beforeId };
    const stored =
      asker.conversationId !== null
        ? await chat.inConversation(asker.conversationId, HISTORY_TYPES.thread, page)
        : await chat.between(asker.principal.id, butlerId, HISTORY_TYPES.pair, page);
    return stored.map(fromStoredRow);
  }

  /** A row's line in the summary; a remembered row keeps it, as it is the same every turn it is summarised in. */
  const summaryLine = (r: MemoryRow) =>
    `- ${r.senderId === butlerId ? 'Butler' : r.senderName}: ${clip(textOfRow(r).replace(/\s+/g, ' '), SUMMARY_LINE_CHARS)}`;

  return {
    async load(asker: Asker, beforeId: number): Promise<ModelMessage[]> {
      const all = (await rows(asker, beforeId)).filter((r) => r.senderId === butlerId || r.senderId === asker.principal.id);
      const older = all.slice(0, Math.max(0, all.length - window));
      const recent = all.slice(older.length);
      const messages: ModelMessage[] = [];
      if (older.length > 0) {
        const lines = older.map((r) => (r.request ? summaryLine(r) : (r.summaryLine ??= summaryLine(r))));
        messages.push({ role: 'system', content: `Summary of earlier turns of this conversation:\n${lines.join('\n')}` });
      }
      for (const row of recent) {
        messages.push(row.senderId === butlerId ? { role: 'assistant', content: textOfRow(row) } : { role: 'user', content: textOfRow(row) });
      }
      return messages;
    },
  };
}
export type History = ReturnType<typeof createHistory>;
