// Developer mock operations (admin, non-production): reset to the bootstrap state, insert chat
// rows and connector log entries for UI work, read an agent's raw token for local scripts.
// A chat row that names no conversation goes to the pair's default thread, as the older hub filed
// it: the seed scripts insert both sides of a conversation, so the live rule for a machine's reply
// (the thread of the human's latest message) would split one seeded exchange over two threads.
import { Errors } from '../errors.js';
import type { ChatRowType } from '../protocol/messages.js';
import type { LogLevel } from '../protocol/messages.js';
import type { Store } from '../store/db.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Clock } from '../clock.js';
import { toPrincipal } from '../delivery/directory.js';
import { defaultThreadRequest, threadPair } from '../delivery/threads.js';
import type { LiveSessions } from '../actors/liveSessions.js';
import type { Pipeline } from '../delivery/pipeline.js';
import { CloseCode } from '../protocol/errors.js';

export interface MockChatInput {
  sender_username: string;
  receiver_username: string;
  content: string;
  conversation_id?: number;
  type: ChatRowType;
  local_id?: string;
}

export function createDevMockService(deps: {
  store: Store;
  clock: Clock;
  users: UsersRepo;
  pipeline: Pipeline;
  sessions: LiveSessions;
  /** The current connector's log, which the older seed script fills. */
  connector: { appendLog(entry: { level: LogLevel; action: string; detail: string }): Promise<void> };
  /** Recreates the bootstrap users and the hub's own presence after the wipe. */
  reinitialise: () => Promise<void>;
}) {
  const { store, users, pipeline, sessions } = deps;
  return {
    async reset(): Promise<void> {
      // Everything queued is written first, so the wipe leaves nothing behind; the sockets open now
      // belong to users that no longer exist.
      await pipeline.drain();
      sessions.endAll(CloseCode.unauthorized, 'the hub was reset');
      await store.truncateAll();
      pipeline.reset();
      await deps.reinitialise();
    },

    /** An entry in the current connector's log; 404 without a connector. */
    appendConnectorLog(entry: { level: LogLevel; action: string; detail: string }): Promise<void> {
      return deps.connector.appendLog(entry);
    },

    async insertChat(input: MockChatInput): Promise<{ id: number; duplicate: boolean }> {
      const sender = await users.findByUsername(input.sender_username);
      if (!sender) throw Errors.notFound('sender');
      const receiver = await users.findByUsername(input.receiver_username);
      if (!receiver) throw Errors.notFound('receiver');
      const from = toPrincipal(sender);
      const pair = threadPair(from, toPrincipal(receiver));
      const conversationId = input.conversation_id ?? (pair ? (await store.ensureDefaultThreads([defaultThreadRequest(pair, deps.clock())]))[0] : undefined);
      // Through the pipeline like any chat, so open dashboards see it arrive; Butler leaves it be.
      const { stored } = await pipeline.post(from, {
        type: input.type,
        payload: input.content,
        target_id: receiver.id,
        conversation_id: conversationId,
        local_id: input.local_id,
        recordOnly: true,
      });
      return { id: stored!.id, duplicate: stored!.duplicate };
    },
  };
}
export type DevMockService = ReturnType<typeof createDevMockService>;
