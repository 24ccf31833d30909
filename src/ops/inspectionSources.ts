// The hub's own actors as inspection sources: the router (address table, per-user socket counts)
// and the connection actors (by state and role, and each one's snapshot). Contexts are projected
// field by field: the socket port, the router ref, the upgrade and the credential are never shown.
import type { ConnectionActor } from '../actors/connection.js';
import type { RouterContext } from '../actors/router.js';
import { stateOf, type ActorSnapshotView, type InspectableSource } from './inspection.js';
import type { Endpoint } from '../delivery/types.js';

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
