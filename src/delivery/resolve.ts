// Resolving one queued message: its target (looked up once, then cached), the check that only
// Butler speaks as Butler, its conversation thread, and the columns it is stored with.
import { Errors } from '../errors.js';
import { BUTLER_STREAM_PREFIX } from '../protocol/butler.js';
import type { Directory } from './directory.js';
import { isThreadedType, type MessageItem } from './items.js';
import { summarise } from './summary.js';
import type { ThreadRouting } from './threads.js';
import type { Message, Principal } from './types.js';

/** How agents recognise Butler's commands: `[DIRECTIVE]` first, after any whitespace, in any case. */
const DIRECTIVE_LOOK = /^\s*\[directive\]/i;

/**
 * Only Butler's own messages may look like Butler's: a chat text starting with [DIRECTIVE] is a
 * command to an agent, and a stream id with Butler's prefix ties a message to one of Butler's
 * requests, so an agent answering Butler is the one other sender that may use such an id. Every
 * sender with role BUTLER here is Butler itself (no credential authenticates as Butler), except the
 * dev mock's record-only rows, which are checked like anyone's.
 */
export function refusePosingAsButler(item: Pick<MessageItem, 'sender' | 'input'>, target: Principal | undefined): void {
  const { sender, input } = item;
  if (sender.role === 'BUTLER' && !input.recordOnly) return;
  if (isThreadedType(input.type) && typeof input.payload === 'string' && DIRECTIVE_LOOK.test(input.payload)) throw Errors.directiveFromClient();
  if (input.stream_id?.startsWith(BUTLER_STREAM_PREFIX) && target?.role !== 'BUTLER') throw Errors.butlerStreamId(BUTLER_STREAM_PREFIX);
}

/** The message a resolved item becomes: the frame's fields and the columns it is stored with. */
export function toMessage(item: Pick<MessageItem, 'sender' | 'input' | 'at'>, target: Principal | undefined, conversationId: number | null): Message {
  const { input, sender } = item;
  const { level, content } = summarise(input.type, input.payload);
  return {
    type: input.type,
    sender_id: sender.id,
    sender_name: sender.username,
    sender_role: sender.role,
    target_id: target?.id ?? null,
    target_role: target?.role ?? null,
    payload: input.payload,
    level,
    content,
    local_id: input.local_id ?? null,
    conversation_id: conversationId,
    stream_id: input.stream_id ?? null,
    created_at: item.at,
  };
}

export function createResolver(deps: { directory: Pick<Directory, 'peek' | 'load'>; threads: Pick<ThreadRouting, 'conversationOf'> }) {
  const { directory, threads } = deps;

  async function targetOf(id: number, sought?: Set<number>): Promise<Principal> {
    let target = directory.peek(id);
    // A missing user is looked for once per batch, not once per frame (a query each on PostgreSQL).
    if (!target && !sought?.has(id)) {
      await directory.load([id]);
      sought?.add(id);
      target = directory.peek(id);
    }
    if (!target) throw Errors.notFound(`target user ${id}`);
    return target;
  }

  /**
   * The message `item` becomes, or the HubError that says why it cannot be accepted. `sought` holds
   * the user ids this batch already looked up in the store.
   */
  return async function resolve(item: MessageItem, sought?: Set<number>): Promise<Message> {
    const target = item.input.target_id === undefined ? undefined : await targetOf(item.input.target_id, sought);
    refusePosingAsButler(item, target);
    return toMessage(item, target, await threads.conversationOf(item, target));
  };
}
export type Resolve = ReturnType<typeof createResolver>;
