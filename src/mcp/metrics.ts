// MCP tool calls counted by tool and outcome (ok, refused: the hub said no with its message, error:
// anything unexpected), beside the HTTP request metrics /mcp already gets as a route.
import type { MetricsFactory } from '../metrics/families.js';

export const TOOL_NAMES = ['list_agents', 'get_agent', 'send_message', 'read_history', 'list_approvals', 'decide_approval', 'ask_butler'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];
export type ToolOutcome = 'ok' | 'refused' | 'error';

export function createMcpMeter(factory: MetricsFactory) {
  const calls = factory.counter({
    name: 'hub_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (refused: the hub answered with a tool error)',
    labels: { tool: [...TOOL_NAMES], outcome: ['ok', 'refused', 'error'] },
  });
  return {
    toolCalled(tool: ToolName, outcome: ToolOutcome): void {
      calls.labels({ tool, outcome }).inc();
    },
  };
}
export type McpMeter = ReturnType<typeof createMcpMeter>;
