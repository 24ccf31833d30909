// Butler and its conversation actors as GET /api/admin/actors shows them.
import { stateOf, type ActorSnapshotView, type InspectableSource } from '../ops/inspection.js';
import type { ButlerContext } from './actor.js';
import type { ConversationActor } from './conversation.js';
import type { Turn } from './turns.js';

interface ButlerLike {
  getSnapshot(): { value: unknown; status: string; context: ButlerContext };
}

// `conversation-<asker id>-<thread id>` (0 when the asker has no thread: an agent).
const CONVERSATION_ID = /^conversation-(\d{1,15})-(\d{1,15})$/;
export const conversationActorId = (key: string) => {
  const [asker, thread] = key.split(':');
  return `conversation-${asker}-${thread === '-' ? 0 : thread}`;
};

function turnView(turn: Turn | null) {
  if (!turn) return null;
  return turn.kind === 'message'
    ? { kind: 'message', message_id: turn.message.id }
    : { kind: 'decision', action_id: turn.request.action_id, status: turn.request.status };
}

function conversationView(key: string, actor: ConversationActor): ActorSnapshotView {
  const snapshot = actor.getSnapshot();
  const c = snapshot.context;
  return {
    id: conversationActorId(key),
    kind: 'conversation',
    state: stateOf(snapshot.value),
    status: snapshot.status,
    context: {
      asker: { id: c.asker.principal.id, username: c.asker.principal.username, role: c.asker.principal.role },
      conversation_id: c.asker.conversationId,
      current: turnView(c.current),
      queued: c.queue.map(turnView),
      answered: c.answered,
    },
  };
}

/** Butler and its conversations (one actor per asker and thread), with what each is answering. */
export function butlerSource(butler: ButlerLike, relay: { readonly open: number }): InspectableSource {
  const butlerView = (): ActorSnapshotView => {
    const snapshot = butler.getSnapshot();
    const c = snapshot.context;
    return {
      id: 'butler',
      kind: 'butler',
      state: stateOf(snapshot.value),
      status: snapshot.status,
      context: {
        user_id: c.butler.id,
        conversations: c.conversations.size,
        turns: c.turns,
        claimed_answers: c.claimed,
        open_agent_requests: relay.open,
        // BUTLER_MAX_CONCURRENCY at work: model calls streaming, and waiting their turn.
        ...(c.modelCalls && { model_calls: { in_flight: c.modelCalls.active, queued: c.modelCalls.queued, max: c.modelCalls.max } }),
      },
    };
  };
  return {
    name: 'butler',
    summary({ userId, limit }) {
      const { context, ...head } = butlerView();
      const byState: Record<string, number> = {};
      const items: Array<Record<string, unknown>> = [];
      for (const [key, actor] of butler.getSnapshot().context.conversations) {
        const view = conversationView(key, actor);
        byState[view.state] = (byState[view.state] ?? 0) + 1;
        const asker = view.context['asker'] as { id: number };
        if (items.length < limit && (userId === undefined || asker.id === userId)) items.push({ id: view.id, state: view.state, ...view.context });
      }
      return { ...head, ...context, conversations_by_state: byState, items };
    },
    snapshot(id) {
      if (id === 'butler') return butlerView();
      const match = CONVERSATION_ID.exec(id);
      if (!match) return undefined;
      const key = `${match[1]}:${match[2] === '0' ? '-' : match[2]}`;
      const actor = butler.getSnapshot().context.conversations.get(key);
      return actor ? conversationView(key, actor) : undefined;
    },
  };
}
