// list_approvals and decide_approval: the authorization requests Butler made that the caller may see,
// and the caller's decision on one, with an optional note stored beside it — through Butler's authorizations, which allow it only to the
// person the request is for (or an admin), exactly as the dashboard's approval card does.
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toPrincipal } from '../../delivery/directory.js';
import { AuthorizationStatuses, authorizationView, decisionNote } from '../../protocol/butler.js';
import type { McpDeps, McpRequestScope } from '../context.js';
import { runTool } from '../toolResult.js';

export function registerApprovalTools(server: McpServer, deps: McpDeps, scope: McpRequestScope): void {
  server.registerTool(
    'list_approvals',
    {
      title: 'List approvals',
      description:
        "List Butler's authorization requests you asked for or must decide, newest first (status PENDING: waiting for a decision; decided ones show who decided and their note).",
      inputSchema: z.object({
        status: z.enum(AuthorizationStatuses).optional().describe('only requests in this state'),
        limit: z.number().int().min(1).max(200).default(50),
      }),
      outputSchema: z.object({ approvals: z.array(authorizationView) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      runTool('list_approvals', deps, async () => ({
        approvals: await deps.authorizations.list(toPrincipal(scope.caller.user), { status: input.status, limit: input.limit }),
      })),
  );

  server.registerTool(
    'decide_approval',
    {
      title: 'Decide an approval',
      description: "Approve or reject one of Butler's pending authorization requests addressed to you; approving sends the command to the agent.",
      inputSchema: z.object({
        action_id: z.string().trim().min(1).max(128),
        approve: z.boolean().describe('true runs the command, false refuses it'),
        note: decisionNote.describe('why, in a sentence; stored with the decision and shown to whoever may see the request'),
      }),
      outputSchema: z.object({
        action_id: z.string(),
        status: z.enum(['APPROVED', 'REJECTED']),
        result: z.string(),
        note: z.string().nullable(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (input) =>
      runTool('decide_approval', deps, async () => {
        const note = input.note || undefined;
        const out = await deps.authorizations.respond(toPrincipal(scope.caller.user), { action_id: input.action_id, approved: input.approve, note });
        return { action_id: out.action_id, status: input.approve ? ('APPROVED' as const) : ('REJECTED' as const), result: out.result, note: note ?? null };
      }),
  );
}
