// Chat over HTTP: the history between the caller and a peer, a human's conversation threads with
// machine peers (list, create, rename/pin/archive, messages), and the Butler↔agent monitor history.
// Threads belong to one human: another user's thread answers as if it did not exist.
import { Errors } from '../errors.js';
import type { CreateThreadInput, HistoryPage, ListThreadsQuery, UpdateThreadInput } from '../protocol/chat.js';
import { ChatRowTypes } from '../protocol/messages.js';
import { type ChatMessageView, type ThreadView } from '../protocol/objects.js';
import { isMachineRole } from '../protocol/roles.js';
import { channelKindFor, defaultThreadTitle, type ChannelKind } from '../protocol/threads.js';
import type { ChatPage, ChatRepo } from '../store/repositories/chat.js';
import type { ThreadPatch, ThreadsRepo } from '../store/repositories/threads.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { ThreadRow, UserRow } from '../store/schema.js';
import type { Clock } from '../clock.js';
import { toChatMessageView, toThreadView } from './views.js';

/** The monitor view shows what Butler and an agent said to each other, not authorization prompts. */
const MONITOR_TYPES = ['CHAT'] as const;

function pageOf(query: HistoryPage): ChatPage {
  return { limit: query.limit, beforeId: query.before_id };
}

export function createChatService(deps: { users: UsersRepo; threads: ThreadsRepo; chat: ChatRepo; clock: Clock }) {
  const { users, threads, chat, clock } = deps;

  /** Machines talk in threads but never own one; checked before anything else a thread route does. */
  function ensureHuman(caller: UserRow): void {
    if (isMachineRole(caller.role)) throw Errors.forbidden('only human users have conversation threads');
  }

  /** The machine peer of a thread and the channel kind its role implies. */
  async function machinePeer(peerId: number): Promise<{ peer: UserRow; kind: ChannelKind }> {
    const peer = await users.findById(peerId);
    if (!peer) throw Errors.notFound('user');
    const kind = channelKindFor(peer.role);
    if (!kind) throw Errors.badRequest('peer_id must name an agent or Butler: threads are conversations with a machine peer');
    return { peer, kind };
  }

  function checkKind(given: ChannelKind | undefined, peer: UserRow, kind: ChannelKind): void {
    if (given !== undefined && given !== kind) {
      throw Errors.badRequest(`channel_kind ${given} does not match the peer's role ${peer.role} (expected ${kind})`);
    }
  }

  /** The caller's own thread; any other thread is reported missing so ids of others stay private. */
  async function ownThread(caller: UserRow, id: number): Promise<ThreadRow> {
    ensureHuman(caller);
    const thread = await threads.findById(id);
    if (!thread || thread.owner_user_id !== caller.id) throw Errors.notFound('thread');
    return thread;
  }

  return {
    ensureHuman,

    async history(caller: UserRow, peerId: number, query: HistoryPage): Promise<ChatMessageView[]> {
      if (!(await users.findById(peerId))) throw Errors.notFound('user');
      const rows = await chat.between(caller.id, peerId, ChatRowTypes, pageOf(query));
      return rows.map(toChatMessageView);
    },

    async listThreads(caller: UserRow, query: ListThreadsQuery): Promise<ThreadView[]> {
      ensureHuman(caller);
      if (query.peer_id !== undefined) {
        const { peer, kind } = await machinePeer(query.peer_id);
        checkKind(query.channel_kind, peer, kind);
      }
      // A read never writes: the default thread is made by the first chat message (the pipeline).
      const rows = await threads.list({
        ownerId: caller.id,
        peerId: query.peer_id,
        kind: query.channel_kind,
        includeArchived: query.include_archived,
      });
      return rows.map(toThreadView);
    },

    async createThread(caller: UserRow, input: CreateThreadInput): Promise<ThreadView> {
      ensureHuman(caller);
      const { peer, kind } = await machinePeer(input.peer_id);
      checkKind(input.channel_kind, peer, kind);
      const now = clock();
      const row = await threads.insert({
        owner_user_id: caller.id,
        peer_user_id: peer.id,
        channel_kind: kind,
        title: input.title ?? defaultThreadTitle(kind, peer.username),
        is_default: 0,
        created_at: now,
        updated_at: now,
      });
      return toThreadView(row);
    },

    async updateThread(caller: UserRow, id: number, input: UpdateThreadInput): Promise<ThreadView> {
      const thread = await ownThread(caller, id);
      const now = clock();
      const changes: Omit<ThreadPatch, 'updated_at'> = {};
      if (input.title !== undefined) changes.title = input.title;
      if (input.summary !== undefined) changes.summary = input.summary;
      if (input.is_pinned !== undefined) changes.is_pinned = input.is_pinned ? 1 : 0;
      // Archiving twice keeps the first time: archived_at says when the thread was put away.
      if (input.is_archived !== undefined) changes.archived_at = input.is_archived ? (thread.archived_at ?? now) : null;
      if (Object.keys(changes).length === 0) throw Errors.badRequest('nothing to update');
      const row = await threads.update(id, caller.id, { ...changes, updated_at: now });
      if (!row) throw Errors.notFound('thread'); // deleted between the read and the write
      return toThreadView(row);
    },

    async threadMessages(caller: UserRow, id: number, query: HistoryPage): Promise<ChatMessageView[]> {
      const thread = await ownThread(caller, id);
      const rows = await chat.inConversation(thread.id, ChatRowTypes, pageOf(query));
      return rows.map(toChatMessageView);
    },

    async butlerAgentHistory(agentId: number, query: HistoryPage): Promise<ChatMessageView[]> {
      const agent = await users.findById(agentId);
      if (!agent || agent.role !== 'AGENT') throw Errors.notFound('agent');
      const { rows } = await users.list({ roles: ['BUTLER'], offset: 0, limit: 1 });
      const butler = rows[0];
      if (!butler) throw Errors.notFound('Butler');
      const history = await chat.between(butler.id, agent.id, MONITOR_TYPES, pageOf(query));
      return history.map(toChatMessageView);
    },
  };
}
export type ChatService = ReturnType<typeof createChatService>;
