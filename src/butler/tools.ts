// The tools Butler's language model may call, and the one command path safe mode shares with it.
// The policy lives here, not in the prompt: a command is only ever sent to an agent once the human
// the policy names has approved it (or the hub allows agent-initiated commands outright). Nothing
// the model or an agent writes can approve a request; only a human's answer does.
import type { Logger } from 'pino';
import { z } from 'zod';
import { HubError } from '../errors.js';
import { DIRECTIVE_PREFIX, ToolNames, toolArguments, type ToolName } from '../protocol/butler.js';
import { zodIssueMessages } from '../protocol/validation.js';
import type { AuthorizationRow } from '../store/schema.js';
import type { Authorizations } from './authorizations.js';
import type { ModelTool } from './model.js';
import { RelayError, type AgentRelay } from './relay.js';
import type { Principal } from '../delivery/types.js';

/** Who Butler is answering, and where. */
export interface Asker {
  principal: Principal;
  conversationId: number | null;
}

export interface AgentInfo {
  id: number;
  name: string;
  online: boolean;
  status: string;
  last_report: string | null;
  last_seen_at: string | null;
  agent_kind: string | null;
  description: string | null;
}

/** What Butler knows about agents: the store for who exists, the router for who is connected. */
export interface AgentDirectory {
  list(): Promise<{ agents: AgentInfo[]; total: number }>;
  find(id: number): Promise<Principal | undefined>;
  findByName(name: string): Promise<Principal | undefined>;
  isOnline(id: number): boolean;
}

export type AgentCommandPolicy = 'approval' | 'allow' | 'deny';

export type CommandOutcome =
  | { kind: 'pending'; request: AuthorizationRow; approver: 'you' | 'an admin' }
  | { kind: 'answered'; agent: Principal; answer: string }
  | { kind: 'refused'; message: string };

export interface ToolboxDeps {
  agents: AgentDirectory;
  relay: AgentRelay;
  authorizations: Authorizations;
  agentCommands: AgentCommandPolicy;
  /** Whether a user is a chat-platform identity (cannot log in to approve anything itself). */
  isPlatformIdentity(userId: number): Promise<boolean>;
  logger: Logger;
}

/** The tools as the Chat Completions API takes them, with JSON schemas from the zod schemas. */
export function toolDefinitions(): ModelTool[] {
  return ToolNames.map((name) => {
    const schema = toolArguments[name];
    const { $schema: _s, description, ...parameters } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return { type: 'function', function: { name, description: description ?? name, parameters } };
  });
}

const isToolName = (name: string): name is ToolName => (ToolNames as readonly string[]).includes(name);

export function createToolbox(deps: ToolboxDeps) {
  const { agents, relay, authorizations } = deps;

  async function agentById(id: number): Promise<Principal | string> {
    const agent = await agents.find(id);
    if (!agent || agent.role !== 'AGENT') return `there is no agent with id ${id}; call list_agents for the ids`;
    return agent;
  }

  /**
   * A command for an agent, under the hub's policy: a human's own request waits for that human's
   * approval; an agent's needs an admin's (or runs, or is refused, per BUTLER_AGENT_COMMANDS); a
   * chat-platform user's needs an admin's, since that user has no dashboard to approve from.
   */
  async function command(asker: Asker, agent: Principal, text: string, reason: string, signal: AbortSignal): Promise<CommandOutcome> {
    if (!agents.isOnline(agent.id)) return { kind: 'refused', message: `${agent.username} is offline, so the command was not sent` };
    const fromAgent = asker.principal.role === 'AGENT' || asker.principal.role === 'BUTLER';
    if (fromAgent && deps.agentCommands === 'deny') {
      return { kind: 'refused', message: 'this hub does not let agents command other agents' };
    }
    if (fromAgent && deps.agentCommands === 'allow') {
      return { kind: 'answered', agent, answer: await relay.ask(agent, `${DIRECTIVE_PREFIX}${text}`, signal) };
    }
    const byAdmin = fromAgent || (await deps.isPlatformIdentity(asker.principal.id));
    const request = await authorizations.request({
      requester: asker.principal,
      conversationId: asker.conversationId,
      approverId: byAdmin ? undefined : asker.principal.id,
      agent,
      command: text,
      reason,
    });
    return { kind: 'pending', request, approver: byAdmin ? 'an admin' : 'you' };
  }

  /** Runs one tool call of the model; the result is JSON text for the model, errors included. */
  async function run(name: string, rawArguments: string, asker: Asker, signal: AbortSignal): Promise<string> {
    if (!isToolName(name)) return JSON.stringify({ error: `unknown tool "${name}"; the tools are ${ToolNames.join(', ')}` });
    let json: unknown;
    try {
      json = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
    } catch {
      return JSON.stringify({ error: `the arguments of ${name} are not valid JSON` });
    }
    const parsed = toolArguments[name].safeParse(json);
    if (!parsed.success) return JSON.stringify({ error: `invalid arguments for ${name}: ${zodIssueMessages(parsed.error, json).join('; ')}` });

    try {
      switch (name) {
        case 'list_agents': {
          const { agents: list, total } = await agents.list();
          return JSON.stringify(total > list.length ? { agents: list, total, note: `only the first ${list.length} are listed` } : { agents: list });
        }
        case 'command_agent': {
          const args = parsed.data as z.output<typeof toolArguments.command_agent>;
          const agent = await agentById(args.target_agent_id);
          if (typeof agent === 'string') return JSON.stringify({ error: agent });
          const outcome = await command(asker, agent, args.command, args.reasoning, signal);
          if (outcome.kind === 'refused') return JSON.stringify({ error: outcome.message });
          if (outcome.kind === 'answered') return JSON.stringify({ status: 'DONE', agent: agent.username, answer: outcome.answer });
          return JSON.stringify({
            status: 'PENDING_APPROVAL',
            action_id: outcome.request.action_id,
            note: `Nothing has been sent yet. The command runs only after ${outcome.approver === 'you' ? 'the user' : 'an admin'} approves it; the result will follow in this conversation.`,
          });
        }
        case 'ask_agent': {
          const args = parsed.data as z.output<typeof toolArguments.ask_agent>;
          const agent = await agentById(args.target_agent_id);
          if (typeof agent === 'string') return JSON.stringify({ error: agent });
          if (!agents.isOnline(agent.id)) return JSON.stringify({ error: `${agent.username} is offline` });
          return JSON.stringify({ agent: agent.username, answer: await relay.ask(agent, args.question, signal) });
        }
      }
    } catch (err) {
      if (signal.aborted) throw err;
      // Relay timeouts and catalogue errors are written for people; anything else stays in the log.
      const known = err instanceof RelayError || err instanceof HubError;
      if (!known) deps.logger.error({ err, tool: name }, 'a Butler tool failed');
      return JSON.stringify({ error: known ? err.message : `${name} failed inside the hub` });
    }
  }

  return { run, command, agents };
}
export type Toolbox = ReturnType<typeof createToolbox>;
