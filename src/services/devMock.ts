// Developer mock operations (admin, non-production): reset to the bootstrap state, insert chat
// rows and connector log entries for UI work, read an agent's raw token for local scripts.
import { Errors } from '../errors.js';
import type { ChatRowType } from '../protocol/messages.js';
import type { LogLevel } from '../protocol/messages.js';
import type { Store } from '../store/db.js';
import type { UsersRepo } from '../store/repositories/users.js';
import { toPrincipal } from '../delivery/directory.js';
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
      // Through the pipeline like any chat, so open dashboards see it arrive; Butler leaves it be.
      const { stored } = await pipeline.post(toPrincipal(sender), {
        type: input.type,
        payload: input.content,
        target_id: receiver.id,
        conversation_id: input.conversation_id,
        local_id: input.local_id,
        recordOnly: true,
      });
      return { id: stored!.id, duplicate: stored!.duplicate };
    },
  };
}
export type DevMockService = ReturnType<typeof createDevMockService>;
