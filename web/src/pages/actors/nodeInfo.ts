// Which hub node the Actors page is looking at: in cluster mode the inspection answer carries a
// top-level `node` ({ id, cluster, leader?, peers? }); older and single hubs leave it out.

export interface NodeInfo {
  id: string;
  cluster: boolean;
  leader?: boolean;
  peers?: string[];
}

/** The node object when the answer has a well-formed one, else undefined. */
export function nodeOf(summary: Record<string, unknown> | undefined): NodeInfo | undefined {
  const node = summary?.['node'];
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const n = node as Record<string, unknown>;
  if (typeof n['id'] !== 'string') return undefined;
  return {
    id: n['id'],
    cluster: n['cluster'] === true,
    leader: typeof n['leader'] === 'boolean' ? n['leader'] : undefined,
    peers: Array.isArray(n['peers']) ? n['peers'].filter((p): p is string => typeof p === 'string') : undefined,
  };
}
