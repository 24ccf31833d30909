// Safe mode: Butler without a language model. A message is read by a few fixed rules: `@agent-name
// text` relays a command (under the same approval policy as the model's command_agent), a request
// for the agents lists them with their presence, anything else gets the help text. Pure functions;
// the brain carries them out.
import type { AgentInfo } from './tools.js';

export type SafeIntent =
  | { kind: 'relay'; agentName: string; text: string }
  | { kind: 'relay_usage'; agentName: string }
  | { kind: 'list_agents' }
  | { kind: 'help'; greeting: boolean };

const LIST_WORDS = /^\/?(agents|list( agents)?|list all agents|status|who('s| is) (online|there)|presence)\??$/i;
const GREETING = /^(hi|hello|hey|good (morning|afternoon|evening))\b/i;
// A name as the hub allows it: no spaces; anything up to the first whitespace.
const RELAY = /^@(\S+)(?:\s+([\s\S]*))?$/;

export function planSafeReply(text: string): SafeIntent {
  const trimmed = text.trim();
  const relay = RELAY.exec(trimmed);
  if (relay) {
    const body = relay[2]?.trim() ?? '';
    return body.length > 0 ? { kind: 'relay', agentName: relay[1]!, text: body } : { kind: 'relay_usage', agentName: relay[1]! };
  }
  if (LIST_WORDS.test(trimmed)) return { kind: 'list_agents' };
  return { kind: 'help', greeting: GREETING.test(trimmed) };
}

export function describeAgents(agents: readonly AgentInfo[], total: number): string {
  if (total === 0) return 'No agents are registered yet. An admin registers one with POST /api/users/agents.';
  const online = agents.filter((a) => a.online).length;
  const lines = agents.map((a) => {
    const report = a.last_report ? ` — ${a.last_report}` : '';
    return `- ${a.name} (id ${a.id}): ${a.online ? 'online' : 'offline'}${report}`;
  });
  const more = total > agents.length ? `\n…and ${total - agents.length} more.` : '';
  return `Agents: ${online} of ${agents.length} listed online.\n${lines.join('\n')}${more}`;
}

export const SAFE_MODE_HELP = [
  'I am running in safe mode (no language model is configured), so I follow a few fixed rules:',
  '- `agents` lists the agents and whether they are online;',
  '- `@agent-name <text>` sends <text> to that agent as a command, once it is approved, and brings back its answer;',
  '- `/cancel` stops what I am doing in this conversation.',
].join('\n');
