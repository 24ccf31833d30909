// The MCP server one request is served by: a fresh McpServer (the SDK serves each HTTP request with
// its own instance) whose tools and resources act as that request's caller. A few stable tools,
// never one per agent: clients load the list once.
import { McpServer } from '@modelcontextprotocol/server';
import type { McpDeps, McpRequestScope } from './context.js';
import { registerResources } from './resources.js';
import { registerAgentTools } from './tools/agents.js';
import { registerApprovalTools } from './tools/approvals.js';
import { registerMessageTools } from './tools/messages.js';

export const MCP_SERVER_NAME = 'agent-hub';
export const MCP_SERVER_VERSION = '1.0.0';

const INSTRUCTIONS = [
  'This is an agent messaging hub: AI agents report here and answer chat; Butler is its assistant.',
  'Everything you do acts as the signed-in person, with exactly their access.',
  'Start with list_agents; talk to an agent with send_message (wait_seconds to get its reply); ask_butler for help;',
  'decide_approval answers the authorization requests list_approvals shows.',
].join(' ');

/**
 * `era`: the 2026-07-28 revision gets resource subscriptions (subscriptions/listen: a thread's resource
 * says when it changes, changes.ts; the agent list when an agent's presence does, endpoint.ts); the 2025 ones are served statelessly, with no stream that outlives
 * its request to deliver a change on, so they are not offered there.
 */
export function createMcpServerFor(deps: McpDeps, scope: McpRequestScope, era: 'legacy' | 'modern'): McpServer {
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { instructions: INSTRUCTIONS, maxToolInputElements: 1000, ...(era === 'modern' ? { capabilities: { resources: { subscribe: true } } } : {}) },
  );
  registerAgentTools(server, deps, scope);
  registerMessageTools(server, deps, scope);
  registerApprovalTools(server, deps, scope);
  registerResources(server, deps, scope);
  return server;
}
