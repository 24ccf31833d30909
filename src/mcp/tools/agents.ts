// list_agents and get_agent: the agents (and Butler) as every signed-in user sees them on the
// dashboard — presence and the one-line last report — and, for one agent, its latest reports that
// the caller may read (a member does not see reports addressed to someone else).
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { Errors } from '../../errors.js';
import type { UserView } from '../../protocol/objects.js';
import { isMachineRole } from '../../protocol/roles.js';
import { CARD_PATH, endpointPath } from '../../a2a/cards.js';
import type { McpDeps, McpRequestScope } from '../context.js';
import { findUser } from '../peers.js';
import { runTool } from '../toolResult.js';

/** Agents read per page while filtering by kind or presence; at most this many pages. */
const PAGE = 200;
const MAX_PAGES = 25;

export const agentSummary = z.object({
  id: z.number().int(),
  name: z.string(),
  kind: z.string().describe('the agent kind (weather, code-review…); "butler" for Butler'),
  online: z.boolean(),
  last_seen_at: z.string().nullable(),
  last_report: z.string().nullable().describe('one line: the latest report to everyone, or the connection state'),
  description: z.string().nullable(),
});
export type AgentSummary = z.infer<typeof agentSummary>;

export function toAgentSummary(view: UserView): AgentSummary {
  return {
    id: view.id,
    name: view.username,
    kind: view.role === 'BUTLER' ? 'butler' : (view.agent_kind ?? 'generic'),
    online: view.online,
    last_seen_at: view.last_seen_at,
    last_report: view.last_report,
    description: view.description,
  };
}

const listInput = z.object({
  text: z.string().trim().max(100).optional().describe('part of the name, any case'),
  kind: z.string().trim().max(64).optional().describe('only agents of this kind'),
  online: z.boolean().optional().describe('only agents that are (true) or are not (false) connected'),
  limit: z.number().int().min(1).max(200).default(50),
});

/** The agents matching the filters, up to `limit`; `total` counts every match (within the pages read). */
export async function listAgents(deps: Pick<McpDeps, 'agents'>, input: z.output<typeof listInput>) {
  const matches: AgentSummary[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { items } = await deps.agents.list({ q: input.text || undefined, page, limit: PAGE });
    for (const view of items) {
      const agent = toAgentSummary(view);
      if (input.kind !== undefined && agent.kind.toLowerCase() !== input.kind.toLowerCase()) continue;
      if (input.online !== undefined && agent.online !== input.online) continue;
      matches.push(agent);
    }
    if (items.length < PAGE) break;
  }
  return { agents: matches.slice(0, input.limit), total: matches.length };
}

const report = z.object({ id: z.number().int(), type: z.string(), level: z.string().nullable(), content: z.string(), timestamp: z.string() });

/** An expensive read (the message search) within one of the caller's READS_PER_CALLER slots, as over HTTP. */
async function gatedRead<T>(deps: Pick<McpDeps, 'readGate'>, callerId: number, read: () => Promise<T>): Promise<T> {
  const release = deps.readGate.enter(callerId);
  if (release === false) return deps.readGate.refusal();
  try {
    return await read();
  } finally {
    release();
  }
}

export function registerAgentTools(server: McpServer, deps: McpDeps, scope: McpRequestScope): void {
  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: 'List the agents (and Butler) with their kind, whether they are online and their last report; filter by name text, kind or online.',
      inputSchema: listInput,
      outputSchema: z.object({ agents: z.array(agentSummary), total: z.number().int() }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => runTool('list_agents', deps, () => listAgents(deps, input)),
  );

  server.registerTool(
    'get_agent',
    {
      title: 'Get one agent',
      description: 'One agent by name or id: its presence, description, A2A card URL and its latest reports you may read.',
      inputSchema: z.object({
        agent: z.string().trim().min(1).max(128).describe('the agent name or id'),
        reports: z.number().int().min(0).max(50).default(5).describe('how many of its latest reports to include'),
      }),
      outputSchema: z.object({
        agent: agentSummary,
        card_url: z.string().describe("the agent's A2A card (Butler's is the hub's own)"),
        recent_reports: z.array(report),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      runTool('get_agent', deps, async () => {
        const user = await findUser(deps.users, input.agent);
        if (!isMachineRole(user.role)) throw Errors.notFound(`agent "${input.agent}"`);
        const { agents } = await listAgents(deps, { text: user.username, limit: 200 });
        const agent = agents.find((a) => a.id === user.id);
        if (!agent) throw Errors.notFound(`agent "${input.agent}"`);
        const reports =
          input.reports === 0 || user.role === 'BUTLER'
            ? []
            : (
                await gatedRead(deps, scope.caller.user.id, () =>
                  deps.messages.list(scope.caller.user, { agent_id: user.username, offset: 0, limit: input.reports }),
                )
              ).items.map((m) => ({
                id: m.id,
                type: m.type,
                level: m.level,
                content: m.content,
                timestamp: m.timestamp,
              }));
        const card_url = `${scope.origin}${user.role === 'BUTLER' ? '' : endpointPath(user.username)}${CARD_PATH}`;
        return { agent, card_url, recent_reports: reports };
      }),
  );
}
