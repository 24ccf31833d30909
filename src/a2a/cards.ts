// A2A agent cards (A2A v1.0 §8): one per agent, built from its row, and the hub's own, which is
// Butler. Pure functions of the row and the origin the caller used, so a card read through a
// balancer points back at the balancer. The cards are checked by the SDK's own codec
// (`AgentCard.fromJSON`) and served in its JSON form.
import { AgentCard } from '@a2a-js/sdk';
import type { AgentSkill } from '../protocol/a2a.js';

/** The A2A protocol versions every endpoint speaks: v1.0, and v0.3 through the SDK's compatibility layer. */
export const PROTOCOL_VERSIONS = ['1.0', '0.3'] as const;
export const CARD_PATH = '/.well-known/agent-card.json';
const HUB_VERSION = '0.1.0';

/** The path of an agent's A2A endpoint (JSON-RPC); its card is this plus CARD_PATH. */
export const endpointPath = (username: string) => `/a2a/agents/${encodeURIComponent(username)}`;

export interface CardSubject {
  username: string;
  description: string | null;
  agentKind: string | null;
  runtimeKind: string | null;
  skills: readonly AgentSkill[];
}

export interface CardOptions {
  /** `scheme://host[:port]` as the caller reached the hub. */
  origin: string;
  pushNotifications: boolean;
}

const BEARER_DESCRIPTION = "A human's session JWT (POST /api/auth/login) or an agent's api_token, as `Authorization: Bearer <token>`.";

/** The Butler skills the hub's card lists: what a human or an agent may ask of it. */
export const BUTLER_SKILLS: readonly AgentSkill[] = [
  {
    id: 'ask',
    name: 'Ask',
    description: "Answers questions about the hub: its agents, their presence and reports, and a conversation's history.",
    tags: ['question', 'status'],
    examples: ['Which agents are online?', 'What did weather-bot report last?'],
  },
  {
    id: 'command',
    name: 'Command an agent',
    description: "Sends a command to one of the hub's agents once a human approves it; the task waits in TASK_STATE_AUTH_REQUIRED meanwhile.",
    tags: ['command', 'approval'],
    examples: ['Tell security-bot to rescan the repository.'],
  },
  {
    id: 'relay',
    name: 'Relay',
    description: 'Passes a message to an agent and brings its answer back: agents reach other agents only through Butler.',
    tags: ['relay'],
    examples: ['Ask weather-bot for the forecast in Oslo.'],
  },
];

/** An agent with no declared skills still has one: chatting with it. */
function defaultSkills(subject: CardSubject): AgentSkill[] {
  const kind = subject.agentKind ?? 'generic';
  return [
    {
      id: 'chat',
      name: `Chat with ${subject.username}`,
      description: subject.description ?? `A ${kind} agent of the hub: send it a message and get its answer.`,
      tags: [kind],
      examples: [],
    },
  ];
}

function card(name: string, description: string, skills: readonly AgentSkill[], options: CardOptions, tags: { kind: string }) {
  const url = `${options.origin}${endpointPath(name)}`;
  return AgentCard.toJSON(
    AgentCard.fromJSON({
      name,
      description,
      supportedInterfaces: PROTOCOL_VERSIONS.map((protocolVersion) => ({ url, protocolBinding: 'JSONRPC', protocolVersion })),
      provider: { organization: 'Agent messaging hub', url: options.origin },
      version: HUB_VERSION,
      documentationUrl: `${options.origin}/api/openapi.json`,
      capabilities: { streaming: true, pushNotifications: options.pushNotifications, extensions: [] },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: BEARER_DESCRIPTION } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: skills.map((s) => ({ ...s, tags: s.tags.length > 0 ? s.tags : [tags.kind] })),
    }),
  ) as Record<string, unknown>;
}

export function agentCard(subject: CardSubject, options: CardOptions): Record<string, unknown> {
  const kind = subject.agentKind ?? 'generic';
  const description = subject.description ?? `${subject.username}, a ${kind} agent on the hub (${subject.runtimeKind ?? 'websocket'}).`;
  return card(subject.username, description, subject.skills.length > 0 ? subject.skills : defaultSkills(subject), options, { kind });
}

export function butlerCard(butlerName: string, options: CardOptions): Record<string, unknown> {
  return card(
    butlerName,
    "Butler, the hub's core agent: answers questions about the hub, relays to its agents and commands them with a human's approval.",
    BUTLER_SKILLS,
    options,
    { kind: 'butler' },
  );
}
