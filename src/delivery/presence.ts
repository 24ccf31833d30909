// Presence kept in the store. Butler lives in the hub's process, so it is ONLINE exactly while the
// hub runs; no agent socket survives a restart, so agents start OFFLINE.
import { BUTLER_USERNAME } from '../protocol/roles.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { Clock } from '../clock.js';
import type { PresencePatch } from '../store/batchWriter.js';
import type { AddressReader } from './addressTable.js';
import type { PresencePort } from './types.js';

/** What Butler's presence says it runs on: a dashboard shows it as Butler's last report. */
export function butlerReport(model: string | undefined): string {
  return model ? `running in the hub, answering with the language model ${model}` : 'running in the hub, in safe mode (no language model configured)';
}

export function createPresenceService(deps: { users: UsersRepo; clock: Clock; butlerModel: string | undefined; sharedPresence?: boolean }) {
  const { users, clock } = deps;
  return {
    async hubStarted(): Promise<void> {
      const now = clock();
      const butler = await users.findByUsername(BUTLER_USERNAME);
      // Other nodes hold agents (a shared presence port): the leader sweeps those no live node holds.
      if (!deps.sharedPresence) await users.setMachinesOffline(now, butler ? [butler.id] : []);
      if (butler) {
        await users.update(butler.id, { status: 'ONLINE', online: 1, last_seen_at: now, last_report: butlerReport(deps.butlerModel), updated_at: now });
      }
    },
    async hubStopping(): Promise<void> {
      // Butler runs on whichever node leads; the hub as a whole does not stop with one node.
      if (deps.sharedPresence) return;
      const now = clock();
      const butler = await users.findByUsername(BUTLER_USERNAME);
      if (butler) await users.update(butler.id, { status: 'OFFLINE', online: 0, last_seen_at: now, last_report: 'hub stopped', updated_at: now });
    },
  };
}
export type PresenceService = ReturnType<typeof createPresenceService>;

/**
 * Presence from sockets: a user's first endpoint opening makes them ONLINE, their last one closing
 * OFFLINE, each with a marker a dashboard reads as "connected"/"disconnected". The change rides the
 * pipeline, so it is stored and announced in order with the user's messages.
 */
export function socketPresence(deps: { presence(userId: number, patch: PresencePatch): void; clock: Clock }): PresencePort {
  const { clock } = deps;
  return {
    online: (user) => deps.presence(user.id, { status: 'ONLINE', online: 1, last_seen_at: clock(), last_report: 'websocket_connected' }),
    offline: (user) => deps.presence(user.id, { status: 'OFFLINE', online: 0, last_seen_at: clock(), last_report: 'websocket_disconnected' }),
  };
}

/** Whether an agent is ONLINE, as a feature asks it (Butler's agent list). */
export interface OnlineAgents {
  isOnline(userId: number): boolean;
}

/** A single node: an agent is ONLINE while it holds a socket here. */
export function socketOnline(addresses: AddressReader): OnlineAgents {
  return { isOnline: (userId) => addresses.countOf(userId) > 0 };
}
