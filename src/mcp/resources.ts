// Resources: the agent list (hub://agents) and one of the caller's threads (hub://threads/{id}/messages),
// read as the caller. A thread that is not the caller's reads as missing, as over HTTP.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { Errors } from '../errors.js';
import type { McpDeps, McpRequestScope } from './context.js';
import { listAgents } from './tools/agents.js';

export const AGENTS_URI = 'hub://agents';
export const threadUri = (id: number) => `hub://threads/${id}/messages`;
const THREAD_MESSAGES = 200;

export function registerResources(server: McpServer, deps: McpDeps, scope: McpRequestScope): void {
  server.registerResource(
    'agents',
    AGENTS_URI,
    { title: 'Agents', description: 'Every agent and Butler: kind, online, last report', mimeType: 'application/json' },
    async (uri) => {
      const { agents } = await listAgents(deps, { limit: 200 });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(agents) }] };
    },
  );

  server.registerResource(
    'thread',
    new ResourceTemplate('hub://threads/{id}/messages', {
      list: async () => {
        const threads = await deps.chat.listThreads(scope.caller.user, { include_archived: false });
        return {
          resources: threads.map((t) => ({ uri: threadUri(t.id), name: `thread-${t.id}`, title: t.title, mimeType: 'application/json' })),
        };
      },
    }),
    { title: 'A conversation thread', description: 'The latest messages of one of your threads, oldest first', mimeType: 'application/json' },
    async (uri, variables) => {
      const id = Number(variables['id']);
      if (!Number.isSafeInteger(id) || id < 1) throw Errors.notFound('thread');
      const rows = await deps.chat.threadMessages(scope.caller.user, id, { limit: THREAD_MESSAGES });
      const messages = rows.map((m) => ({ id: m.id, from: m.sender_name, type: m.type, text: m.payload, timestamp: m.timestamp }));
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(messages) }] };
    },
  );
}
