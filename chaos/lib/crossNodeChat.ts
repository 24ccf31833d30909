// The cluster the cross-node checks (redisOutage, nodeStall) load: `nodes` hubs of one cluster on a
// PostgreSQL store and a Redis, a crew on the first, and the cross-node chat generator connected.
import { randomBytes } from 'node:crypto';
import type { Hub } from '../../bench/lib/servers.js';
import type { ScratchStore } from '../../bench/lib/stores.js';
import { crew } from './cast.js';
import type { ChaosContext } from './check.js';

export interface CrossNodeChatOptions {
  /** Names the hubs (`<label>-n1` …) and their logs. */
  label: string;
  /** Prefix of the crew's user names. */
  prefix: string;
  store: ScratchStore;
  redisUrl: string;
  nodes: number;
  /** Agents, and as many humans. */
  agents: number;
  /** The hubs are pushed here as each starts, so the caller's clean-up stops even a cluster that failed to start. */
  hubs: Hub[];
}

export async function startCrossNodeChat(ctx: ChaosContext, o: CrossNodeChatOptions) {
  const name = `chaos-${randomBytes(3).toString('hex')}`;
  // The first node migrates the fresh database alone.
  for (let i = 0; i < o.nodes; i++)
    o.hubs.push(await ctx.hub(`${o.label}-n${i + 1}`, o.store, { REDIS_URL: o.redisUrl, NODE_ID: `n${i + 1}`, CLUSTER_NAME: name }));
  const cast = await crew(ctx, o.hubs[0]!, o.prefix, o.agents, o.agents);
  // Agent i on node i % nodes writes to human i, whose socket is on the next node: every message crosses nodes.
  const gen = await ctx.generator('crossChat', 'chaos/gen/crossChat.ts');
  await gen.call(
    'connect',
    {
      agents: cast.agents.map((a, i) => ({ url: o.hubs[i % o.nodes]!.socketUrl(a.api_token), target: cast.humans[i]!.id })),
      humans: cast.humans.map((h, i) => o.hubs[(i + 1) % o.nodes]!.socketUrl(h.token)),
    },
    120_000,
  );
  /** The generator's clock (ms since it connected), which its windows are measured on. */
  const at = async () => (await gen.call<{ ms: number }>('now', {}, 10_000)).ms;
  return { cast, gen, at };
}
