// Developer mock operations (admin, non-production): reset to the bootstrap state, insert chat
// rows for UI work, read an agent's raw token for local scripts.
import { Errors } from '../errors.js';
import type { ChatRowType } from '../protocol/messages.js';
import type { Store } from '../store/db.js';
import type { MessagesRepo } from '../store/repositories/messages.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Clock } from './clock.js';

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
  messages: MessagesRepo;
  clock: Clock;
  /** Recreates the bootstrap users and the hub's own presence after the wipe. */
  reinitialise: () => Promise<void>;
}) {
  const { store, users, messages, clock } = deps;
  return {
    async reset(): Promise<void> {
      await store.truncateAll();
      await deps.reinitialise();
    },

    async insertChat(input: MockChatInput): Promise<{ id: number; duplicate: boolean }> {
      const sender = await users.findByUsername(input.sender_username);
      if (!sender) throw Errors.notFound('sender');
      const receiver = await users.findByUsername(input.receiver_username);
      if (!receiver) throw Errors.notFound('receiver');
      const { row, duplicate } = await messages.insert({
        type: input.type,
        sender_id: sender.id,
        sender_name: sender.username,
        sender_role: sender.role,
        target_id: receiver.id,
        payload: JSON.stringify(input.content),
        level: null,
        content: input.content,
        local_id: input.local_id ?? null,
        conversation_id: input.conversation_id ?? null,
        created_at: clock(),
      });
      return { id: row.id, duplicate };
    },
  };
}
export type DevMockService = ReturnType<typeof createDevMockService>;
