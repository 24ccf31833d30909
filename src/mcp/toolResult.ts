// What a tool answers: its structured output (and the same as JSON text, for clients that read only
// text), or a tool error carrying the hub's own message. A HubError is the hub saying no (not found,
// forbidden, conflict…) and its message is the answer; anything else is logged with its stack and
// the client reads only that the call failed.
import type { Logger } from 'pino';
import { HubError } from '../errors.js';
import { isStoreUnavailable } from '../store/errors.js';
import type { McpMeter, ToolName } from './metrics.js';

export interface ToolAnswer {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const errorAnswer = (text: string): ToolAnswer => ({ content: [{ type: 'text', text }], isError: true });

/** Runs a tool's work and shapes its answer; counts the call. */
export async function runTool<T extends Record<string, unknown>>(
  tool: ToolName,
  deps: { meter: McpMeter; logger: Logger },
  work: () => Promise<T>,
): Promise<ToolAnswer> {
  try {
    const out = await work();
    deps.meter.toolCalled(tool, 'ok');
    return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
  } catch (err) {
    if (err instanceof HubError) {
      deps.meter.toolCalled(tool, 'refused');
      return errorAnswer(err.message);
    }
    deps.meter.toolCalled(tool, 'error');
    if (isStoreUnavailable(err)) return errorAnswer('the store is unavailable; try again shortly');
    deps.logger.error({ err, tool }, 'an MCP tool call failed');
    return errorAnswer(`${tool} failed inside the hub; the hub's log has the details`);
  }
}
