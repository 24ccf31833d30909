// Agents' presence over time, kept in memory for the dashboard's online/offline strips: the store
// keeps only the current presence, so this log records each transition the router reports (first
// socket opened, last one closed) for the last day. Each hub node knows what its own router saw since
// it started; before that the strip says "unknown" (no agent socket survives a restart).
import type { Clock } from '../clock.js';
import type { Principal, PresencePort } from '../delivery/types.js';
import type { PresenceStrips } from '../protocol/stats.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Transitions kept per user, whatever the age: a flapping agent cannot grow the log without bound. */
const MAX_PER_USER = 2000;

interface Transition {
  at: number;
  online: boolean;
}

export function createPresenceLog(deps: { clock: Clock; keepMs?: number }) {
  const { clock } = deps;
  const keepMs = deps.keepMs ?? DAY_MS;
  const startedAt = Date.parse(clock());
  const byUser = new Map<number, Transition[]>();

  function record(userId: number, online: boolean): void {
    const at = Date.parse(clock());
    let list = byUser.get(userId);
    if (!list) byUser.set(userId, (list = []));
    if (list.at(-1)?.online === online) return;
    list.push({ at, online });
    // Forget what is older than the window, keeping the last transition before it (the state at its start).
    let drop = 0;
    while (drop < list.length - 1 && (list[drop + 1]!.at < at - keepMs || list.length - drop > MAX_PER_USER)) drop++;
    if (drop > 0) list.splice(0, drop);
  }

  return {
    /** Wraps the router's presence port so every transition is recorded before it is stored. */
    observe(port: PresencePort): PresencePort {
      return {
        online: (user: Principal, key: number) => {
          record(user.id, true);
          port.online(user, key);
        },
        offline: (user: Principal) => {
          record(user.id, false);
          port.offline(user);
        },
      };
    },
    record,
    /** Online spans of each user over the last `hours`, clipped to the window. */
    strips(users: readonly { id: number; username: string }[], hours: number): PresenceStrips {
      const toMs = Date.parse(clock());
      const fromMs = toMs - hours * 60 * 60 * 1000;
      const iso = (ms: number) => new Date(ms).toISOString();
      const agents = users.map((user) => {
        const online: { from: string; to: string | null }[] = [];
        let since: number | undefined;
        for (const t of byUser.get(user.id) ?? []) {
          if (t.online && since === undefined) since = t.at;
          else if (!t.online && since !== undefined) {
            if (t.at > fromMs) online.push({ from: iso(Math.max(since, fromMs)), to: iso(t.at) });
            since = undefined;
          }
        }
        if (since !== undefined) online.push({ from: iso(Math.max(since, fromMs)), to: null });
        return { id: user.id, username: user.username, online };
      });
      return { from: iso(fromMs), to: iso(toMs), known_from: iso(startedAt), agents };
    },
  };
}
export type PresenceLog = ReturnType<typeof createPresenceLog>;
