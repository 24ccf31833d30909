// The overview's view of the agents: the order they are listed in, the counts at the top and the
// search. Pure, so it is tested without a browser.
import type { UserView } from '@hub/client';

type AgentLike = Pick<UserView, 'username' | 'online' | 'status' | 'agent_kind' | 'runtime_kind' | 'description' | 'last_report' | 'last_seen_at'>;

/** Online first; then the most recently seen; then by name. */
export function sortAgents<T extends AgentLike>(agents: Iterable<T>): T[] {
  return [...agents].sort((a, b) => {
    if (a.online !== b.online) return a.online ? -1 : 1;
    const seen = (b.last_seen_at ?? '').localeCompare(a.last_seen_at ?? '');
    if (!a.online && seen !== 0) return seen;
    return a.username.localeCompare(b.username);
  });
}

export interface PresenceCounts {
  total: number;
  online: number;
  offline: number;
  /** Agents per `status` value (ONLINE, OFFLINE, or a richer one an agent reports), most first. */
  byStatus: Array<[string, number]>;
}

export function countPresence(agents: Iterable<AgentLike>): PresenceCounts {
  let total = 0;
  let online = 0;
  const byStatus = new Map<string, number>();
  for (const a of agents) {
    total++;
    if (a.online) online++;
    const status = a.status || (a.online ? 'ONLINE' : 'OFFLINE');
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }
  return { total, online, offline: total - online, byStatus: [...byStatus].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])) };
}

/** Whether an agent matches a search: every word in its name, kind, status, description or last report. */
export function matchesAgent(agent: AgentLike, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const text = [agent.username, agent.agent_kind, agent.runtime_kind, agent.status, agent.description, agent.last_report]
    .filter(Boolean)
    .join('\n')
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

/** `1 report`, `350 reports`: an agent's logs and reports, the telemetry every user sees (chat is not counted). */
export const reportCount = (n: number) => `${n.toLocaleString('en-US')} report${n === 1 ? '' : 's'}`;
