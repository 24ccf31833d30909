// What Butler remembers of its conversations, in memory: each conversation's newest rows are read
// from the store once, on its first turn, and kept up to date from then on by recording the rows
// as they happen (the CHATs delivered to Butler and the CHAT and AUTH_REQUEST messages it posts),
// so a turn costs no query and no JSON parse. The rows are the ones the store would give, in id
// order, each turn taking those before its own message; where memory cannot say (older rows were
// dropped to keep it bounded), the turn reads the store as before.
//
// Two kinds of conversation, as the store's history reads them: a thread (`c:<thread id>`: its CHAT
// and AUTH_REQUEST rows) and an asker without one, an agent (`p:<user id>`: the CHATs between it and
// Butler). Memory is bounded twice: rows per conversation, and characters over all of them (the
// least recently used conversations are forgotten first).
import { ChatRowTypes } from '../protocol/messages.js';
import type { ChatRepo } from '../store/repositories/chat.js';
import type { MessageRow } from '../store/schema.js';
import type { Asker } from './tools.js';

/** One remembered row, with its text as the model reads it. */
export interface MemoryRow {
  id: number;
  senderId: number;
  senderName: string;
  type: string;
  /** CHAT: the text. AUTH_REQUEST: what its line is made of, since its status changes when decided. */
  text: string;
  request?: { actionId: string; command: string; agentName: string; status: string };
  /** Its line in a history summary, once made (not for a request, whose status may change). */
  summaryLine?: string;
}

/** A message as Butler sees it go by (a delivered frame, or one it posted, as stored). */
export interface SeenMessage {
  id: number;
  type: string;
  sender_id: number;
  sender_name: string;
  target_id?: number | null;
  conversation_id?: number | null;
  payload: unknown;
}

export interface MemoryDeps {
  chat: ChatRepo;
  butlerId: number;
  /** Rows a turn is given (BUTLER_HISTORY_WINDOW × 2: the window and the rows it summarises). */
  rowsPerTurn: number;
  /** Characters kept over every conversation. */
  maxChars: number;
}

/**
 * Rows kept beyond a turn's own: those that arrive while a turn waits (queued messages, answers,
 * requests). When a turn finds fewer rows before it than it needs, the store is read instead.
 */
const SLACK = 48;
/** Decisions remembered so a row read or recorded after its decision still shows it. */
const MAX_DECISIONS = 10_000;

interface Conversation {
  rows: MemoryRow[];
  /** The first read found every row the store holds (fewer than it asked for). */
  readAll: boolean;
  /** Rows were dropped to keep it bounded. */
  dropped: boolean;
  chars: number;
  /** Set until the first read from the store is in. */
  ready?: Promise<void>;
}

/** The rows Butler remembers: a thread's chat rows; between two users without a thread, their CHATs. */
export const HISTORY_TYPES = { thread: ChatRowTypes, pair: ['CHAT'] } as const;

function rowText(type: string, payload: unknown): Pick<MemoryRow, 'text' | 'request'> {
  if (type === 'AUTH_REQUEST' && payload && typeof payload === 'object') {
    const p = payload as { action_id?: string; command?: string; target_agent_name?: string; status?: string };
    return {
      text: '',
      request: { actionId: String(p.action_id), command: String(p.command), agentName: String(p.target_agent_name), status: String(p.status) },
    };
  }
  return { text: typeof payload === 'string' ? payload : JSON.stringify(payload) };
}

/** The text the model reads for a row. */
export function textOfRow(row: MemoryRow): string {
  const r = row.request;
  return r ? `[authorization request to run "${r.command}" on ${r.agentName}: ${r.status}]` : row.text;
}

export function fromStoredRow(row: MessageRow): MemoryRow {
  return { id: row.id, senderId: row.sender_id, senderName: row.sender_name, type: row.type, ...rowText(row.type, JSON.parse(row.payload) as unknown) };
}

/** A text row may keep its summary line (history.ts: a name and at most 160 characters of its text). */
const SUMMARY_LINE_ALLOWANCE = 200;

const sizeOf = (row: MemoryRow) => row.text.length + (row.request ? row.request.command.length + 64 : SUMMARY_LINE_ALLOWANCE) + 64;

export function createConversationMemory(deps: MemoryDeps) {
  const { chat, butlerId, rowsPerTurn, maxChars } = deps;
  const keep = rowsPerTurn + SLACK;
  /** In least-recently-used order (a use moves a conversation to the back). */
  const conversations = new Map<string, Conversation>();
  const decisions = new Map<string, string>();
  let chars = 0;

  const keyOf = (asker: Asker) => (asker.conversationId !== null ? `c:${asker.conversationId}` : `p:${asker.principal.id}`);

  function withDecision(row: MemoryRow): MemoryRow {
    const status = row.request && decisions.get(row.request.actionId);
    if (status && row.request) row.request.status = status;
    return row;
  }

  /** Adds a row in id order (a row already there is skipped); drops the oldest past `keep`. */
  function insert(conversation: Conversation, row: MemoryRow): void {
    const rows = conversation.rows;
    let at = rows.length;
    while (at > 0 && rows[at - 1]!.id > row.id) at--;
    if (at > 0 && rows[at - 1]!.id === row.id) return;
    rows.splice(at, 0, withDecision(row));
    const size = sizeOf(row);
    conversation.chars += size;
    chars += size;
    while (rows.length > keep) {
      const dropped = rows.shift()!;
      conversation.chars -= sizeOf(dropped);
      chars -= sizeOf(dropped);
      conversation.dropped = true;
    }
  }

  function forget(key: string): void {
    const conversation = conversations.get(key);
    if (!conversation) return;
    conversations.delete(key);
    chars -= conversation.chars;
  }

  /** Forgets the least recently used conversations until memory is within its budget (never `keepKey`). */
  function shrink(keepKey: string): void {
    for (const key of conversations.keys()) {
      if (chars <= maxChars) return;
      if (key !== keepKey) forget(key);
    }
  }

  /** The conversation's newest rows from the store; rows recorded meanwhile are merged in. */
  function open(key: string, asker: Asker): Conversation {
    const conversation: Conversation = { rows: [], readAll: false, dropped: false, chars: 0 };
    conversations.set(key, conversation);
    conversation.ready = (async () => {
      try {
        const stored =
          asker.conversationId !== null
            ? await chat.inConversation(asker.conversationId, HISTORY_TYPES.thread, { limit: keep })
            : await chat.between(asker.principal.id, butlerId, HISTORY_TYPES.pair, { limit: keep });
        for (const row of stored) insert(conversation, fromStoredRow(row));
        conversation.readAll = stored.length < keep;
      } catch (err) {
        // The next turn reads again.
        if (conversations.get(key) === conversation) forget(key);
        throw err;
      } finally {
        conversation.ready = undefined;
      }
    })();
    return conversation;
  }

  return {
    /**
     * The newest `rowsPerTurn` rows of the asker's conversation before message `beforeId`, oldest
     * first; undefined when memory cannot tell (the caller reads the store).
     */
    async before(asker: Asker, beforeId: number): Promise<MemoryRow[] | undefined> {
      const key = keyOf(asker);
      let conversation = conversations.get(key);
      if (conversation) {
        conversations.delete(key);
        conversations.set(key, conversation);
      } else conversation = open(key, asker);
      if (conversation.ready) await conversation.ready;
      shrink(key);
      let end = conversation.rows.length;
      while (end > 0 && conversation.rows[end - 1]!.id >= beforeId) end--;
      const start = Math.max(0, end - rowsPerTurn);
      if (end - start < rowsPerTurn && !(conversation.readAll && !conversation.dropped)) return undefined;
      return conversation.rows.slice(start, end);
    },

    /** A message went by: remembered in each conversation it belongs to that memory holds. */
    record(message: SeenMessage): void {
      if (message.type !== 'CHAT' && message.type !== 'AUTH_REQUEST') return;
      const row = (): MemoryRow => ({
        id: message.id,
        senderId: message.sender_id,
        senderName: message.sender_name,
        type: message.type,
        ...rowText(message.type, message.payload),
      });
      if (message.conversation_id !== null && message.conversation_id !== undefined) {
        const conversation = conversations.get(`c:${message.conversation_id}`);
        if (conversation) insert(conversation, row());
      }
      if (message.type === 'CHAT') {
        const other = message.sender_id === butlerId ? message.target_id : message.target_id === butlerId ? message.sender_id : undefined;
        const conversation = other !== undefined && other !== null ? conversations.get(`p:${other}`) : undefined;
        if (conversation) insert(conversation, row());
      }
    },

    /** An authorization request was decided: its rows read with the new status from now on. */
    decided(actionId: string, status: string): void {
      decisions.delete(actionId);
      if (decisions.size >= MAX_DECISIONS) decisions.delete(decisions.keys().next().value!);
      decisions.set(actionId, status);
      for (const conversation of conversations.values()) {
        for (const row of conversation.rows) if (row.request?.actionId === actionId) row.request.status = status;
      }
    },

    /** Forgets everything (a dev reset wiped the store; Butler stopped and may miss messages until it starts). */
    clear(): void {
      conversations.clear();
      decisions.clear();
      chars = 0;
    },

    get conversations() {
      return conversations.size;
    },
    get chars() {
      return chars;
    },
  };
}
export type ConversationMemory = ReturnType<typeof createConversationMemory>;
