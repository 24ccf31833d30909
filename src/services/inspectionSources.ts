// The hub's own actors as inspection sources: the router (address table, per-user socket counts)
// and the connection actors (by state and role, and each one's snapshot). Contexts are projected
// field by field: the socket port, the router ref, the upgrade and the credential are never shown.
import type { ConnectionActor } from '../actors/connection.js';
import type { Endpoint } from '../actors/addressTable.js';
import type { RouterContext } from '../actors/router.js';
import type { ButlerContext } from '../butler/actor.js';
import type { ConversationActor } from '../butler/conversation.js';
import type { Turn } from '../butler/turns.js';
import { stateOf, type ActorSnapshotView, type InspectableSource } from './inspection.js';

const CONNECTION_ID = /^connection-(\d{1,15})$/;
export const connectionActorId = (key: number) => `connection-${key}`;

function topState(value: unknown): string {
  return stateOf(value).split('.')[0]!;
}

function connectionView(key: number, actor: ConnectionActor): ActorSnapshotView {
  const snapshot = actor.getSnapshot();
  const c = snapshot.context;
  return {
    id: connectionActorId(key),
    kind: 'connection',
    state: stateOf(snapshot.value),
    status: snapshot.status,
    context: {
      key: c.key,
      user: c.user ? { id: c.user.id, username: c.user.username, role: c.user.role } : null,
      since: c.since ?? null,
      session_expires_at: c.expiresAt === undefined ? null : new Date(c.expiresAt).toISOString(),
      replayed_up_to: c.replayedUpTo ?? null,
      close_code: c.closeCode ?? null,
      close_reason: c.closeReason ?? null,
      limits: {
        frames_available: Math.floor(c.meters.rate.available),
        invalid_frame_warnings_left: Math.floor(c.meters.badFrames.available),
        rate_limit_warnings_left: Math.floor(c.meters.rateStrikes.available),
      },
      outlet: c.outlet ? { closed: c.outlet.closed, congested: c.outlet.congested } : null,
    },
  };
}

export function connectionsSource(connections: ReadonlyMap<number, ConnectionActor>): InspectableSource {
  return {
    name: 'connections',
    summary({ userId, limit }) {
      const byState: Record<string, number> = {};
      const byRole: Record<string, number> = {};
      const byStateAndRole: Record<string, Record<string, number>> = {};
      const items: Array<Record<string, unknown>> = [];
      for (const [key, actor] of connections) {
        const snapshot = actor.getSnapshot();
        const state = topState(snapshot.value);
        const user = snapshot.context.user;
        const role = user?.role ?? 'unknown';
        byState[state] = (byState[state] ?? 0) + 1;
        byRole[role] = (byRole[role] ?? 0) + 1;
        (byStateAndRole[state] ??= {})[role] = (byStateAndRole[state][role] ?? 0) + 1;
        if (items.length < limit && (userId === undefined || user?.id === userId)) {
          items.push({ id: connectionActorId(key), state: stateOf(snapshot.value), user_id: user?.id ?? null, username: user?.username ?? null, role });
        }
      }
      return { total: connections.size, by_state: byState, by_role: byRole, by_state_and_role: byStateAndRole, items };
    },
    snapshot(id) {
      const match = CONNECTION_ID.exec(id);
      const actor = match ? connections.get(Number(match[1])) : undefined;
      return actor ? connectionView(Number(match![1]), actor) : undefined;
    },
  };
}

/** The router as the API shows it: its address table's size and shape, never the endpoints. */
export function routerSource(router: { getSnapshot(): { value: unknown; status: string; context: RouterContext } }): InspectableSource {
  const socketsPerUser = (all: ReadonlySet<Endpoint>) => {
    const counts: Record<string, number> = {};
    for (const e of all) counts[e.user.id] = (counts[e.user.id] ?? 0) + 1;
    return counts;
  };
  const base = () => {
    const snapshot = router.getSnapshot();
    const table = snapshot.context.table.summary();
    return {
      snapshot,
      section: {
        id: 'router',
        state: stateOf(snapshot.value),
        status: snapshot.status,
        endpoints: table.endpoints,
        in_hub_endpoints: table.inHub,
        users: table.users,
        by_role: table.byRole,
        multi_socket_users: table.multiSocketUsers,
        delivered: snapshot.context.delivered,
      },
    };
  };
  return {
    name: 'router',
    summary: () => base().section,
    snapshot(id) {
      if (id !== 'router') return undefined;
      const { snapshot, section } = base();
      const { id: _id, state, status, ...rest } = section;
      return {
        id: 'router',
        kind: 'router',
        state,
        status,
        context: { ...rest, sockets_per_user: socketsPerUser(snapshot.context.table.all), recent_revocations: snapshot.context.revoked.size },
      };
    },
  };
}

interface ButlerLike {
  getSnapshot(): { value: unknown; status: string; context: ButlerContext };
}

// `conversation-<asker id>-<thread id>` (0 when the asker has no thread: an agent).
const CONVERSATION_ID = /^conversation-(\d{1,15})-(\d{1,15})$/;
const conversationActorId = (key: string) => {
  const [asker, thread] = key.split(':');
  return `conversation-${asker}-${thread === '-' ? 0 : thread}`;
};

function turnView(turn: Turn | null) {
  if (!turn) return null;
  return turn.kind === 'message' ? { kind: 'message', message_id: turn.message.id } : { kind: 'decision', action_id: turn.request.action_id, status: turn.request.status };
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
      context: { user_id: c.butler.id, conversations: c.conversations.size, turns: c.turns, claimed_answers: c.claimed, open_agent_requests: relay.open },
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

/**
 * The chat-platform connector. Its lifecycle machine is pure and the store row is its truth, so
 * what is live is shown: `enabled` while a connector runs (its long connection's state, answers
 * queued for the platform), `idle` when none does (a draft, verified or disabled one, or none).
 */
export function connectorSource(connector: { status(): { connectorId: number | null; connection: string; queuedAnswers: number; identities: number } }): InspectableSource {
  const view = (): ActorSnapshotView => {
    const s = connector.status();
    return {
      id: 'connector',
      kind: 'connector',
      state: s.connectorId === null ? 'idle' : 'enabled',
      status: 'active',
      context: { connector_id: s.connectorId, connection: s.connection, queued_answers: s.queuedAnswers, platform_identities: s.identities },
    };
  };
  return {
    name: 'connector',
    summary: () => {
      const { context, ...head } = view();
      return { ...head, ...context };
    },
    snapshot: (id) => (id === 'connector' ? view() : undefined),
  };
}
