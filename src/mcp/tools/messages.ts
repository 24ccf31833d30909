// send_message, read_history and ask_butler: chat as the caller, through the same pipeline their
// dashboard socket uses (stored before it is delivered, the same checks), and the history their
// dashboard shows. Waiting for an answer listens where the caller's own sockets would (inbox.ts).
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { toPrincipal } from '../../delivery/directory.js';
import { estimateBytes } from '../../delivery/pipeline.js';
import type { MessageInput } from '../../delivery/types.js';
import { Errors } from '../../errors.js';
import type { ChatMessageView } from '../../protocol/objects.js';
import { BUTLER_USERNAME } from '../../protocol/roles.js';
import type { UserRow } from '../../store/schema.js';
import type { McpDeps, McpRequestScope } from '../context.js';
import { openInbox, type Answer } from '../inbox.js';
import { findUser } from '../peers.js';
import { runTool } from '../toolResult.js';

/** The longest a send_message may wait for the answer. */
export const MAX_WAIT_SECONDS = 120;
const MAX_TEXT = 100_000;

const answerShape = z.object({ id: z.number().int(), text: z.string(), timestamp: z.string() });
const userRef = z.object({ id: z.number().int(), name: z.string(), role: z.string() });

const historyRow = z.object({
  id: z.number().int(),
  from: z.string(),
  from_id: z.number().int(),
  to_id: z.number().int().nullable(),
  type: z.string(),
  text: z.string(),
  thread_id: z.number().int().nullable(),
  timestamp: z.string(),
});

const toHistoryRow = (m: ChatMessageView) => ({
  id: m.id,
  from: m.sender_name,
  from_id: m.sender_id,
  to_id: m.target_id,
  type: m.type,
  text: m.payload,
  thread_id: m.conversation_id ?? null,
  timestamp: m.timestamp,
});

/** Progress for a request that asked for it (a progress token in its _meta). */
type Notify = (chunk: string, total: number) => void;

interface Sent {
  message_id: number;
  thread_id: number | null;
  answer: Answer | undefined;
  approvals_requested: string[];
}

/** Posts the caller's CHAT to `peer` and, for `waitMs` > 0, waits for the peer's answer. */
async function chatAndWait(
  deps: McpDeps,
  scope: McpRequestScope,
  peer: UserRow,
  text: string,
  thread: number | undefined,
  waitMs: number,
  notify?: Notify,
): Promise<Sent> {
  const sender = toPrincipal(scope.caller.user);
  if (peer.id === sender.id) throw Errors.badRequest('to names yourself: send to an agent, Butler or another person');
  const input: MessageInput = { type: 'CHAT', payload: text, target_id: peer.id, conversation_id: thread, local_id: `mcp-${randomUUID()}` };
  if (!deps.pipeline.admit(estimateBytes(input))) throw Errors.writeQueueFull();
  const inbox = waitMs > 0 ? openInbox(deps.router, sender) : undefined;
  try {
    const { stored, message } = await deps.pipeline.post(sender, input);
    if (!stored) throw Errors.unavailable('the message was not stored');
    const threadId = message.conversation_id ?? null;
    let answer: Answer | undefined;
    if (inbox) {
      let total = 0;
      if (notify) {
        inbox.onChunk((chunk) => {
          total += chunk.length;
          notify(chunk, total);
        });
      }
      inbox.expect({ peerId: peer.id, afterId: stored.id, conversationId: threadId });
      answer = await inbox.answer(waitMs, scope.signal);
    }
    const approvals = (inbox?.authRequests ?? []).flatMap((frame) => {
      const payload = frame.payload as { action_id?: unknown } | null;
      return typeof payload?.action_id === 'string' ? [payload.action_id] : [];
    });
    return { message_id: stored.id, thread_id: threadId, answer, approvals_requested: approvals };
  } finally {
    inbox?.close();
  }
}

function progressNotifier(ctx: {
  mcpReq: { _meta?: { progressToken?: string | number }; notify: (n: { method: string; params: Record<string, unknown> }) => Promise<void> };
}): Notify | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  return (chunk, total) => {
    void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: total, message: chunk } }).catch(() => undefined);
  };
}

export function registerMessageTools(server: McpServer, deps: McpDeps, scope: McpRequestScope): void {
  server.registerTool(
    'send_message',
    {
      title: 'Send a message',
      description: `Send a chat message as you to an agent, Butler or a person (name or id); with wait_seconds (up to ${MAX_WAIT_SECONDS}) it waits for and returns their reply.`,
      inputSchema: z.object({
        to: z.string().trim().min(1).max(128).describe('the recipient: agent, Butler or person, by name or id'),
        text: z.string().min(1).max(MAX_TEXT),
        thread: z.number().int().min(1).optional().describe('your conversation thread with that agent (default: your default thread with it)'),
        wait_seconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).default(0).describe('how long to wait for the reply; 0 returns at once'),
      }),
      outputSchema: z.object({
        message_id: z.number().int(),
        thread_id: z.number().int().nullable(),
        to: userRef,
        status: z.enum(['sent', 'replied', 'no_reply_yet']),
        reply: answerShape.nullable(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    (input, ctx) =>
      runTool('send_message', deps, async () => {
        const peer = await findUser(deps.users, input.to);
        const waitMs = input.wait_seconds * 1000;
        const sent = await chatAndWait(deps, scope, peer, input.text, input.thread, waitMs, progressNotifier(ctx));
        const status = waitMs === 0 ? 'sent' : sent.answer ? 'replied' : 'no_reply_yet';
        return {
          message_id: sent.message_id,
          thread_id: sent.thread_id,
          to: { id: peer.id, name: peer.username, role: peer.role },
          status,
          reply: sent.answer ? { id: sent.answer.id, text: sent.answer.text, timestamp: sent.answer.timestamp } : null,
        };
      }),
  );

  server.registerTool(
    'ask_butler',
    {
      title: 'Ask Butler',
      description: "Ask Butler, the hub's own assistant, and get its answer (streamed as progress); it may ask you to approve a command first.",
      inputSchema: z.object({
        text: z.string().min(1).max(MAX_TEXT),
        thread: z.number().int().min(1).optional().describe('your conversation thread with Butler (default: your default one)'),
      }),
      outputSchema: z.object({
        message_id: z.number().int(),
        thread_id: z.number().int().nullable(),
        status: z.enum(['answered', 'no_answer_yet']),
        answer: answerShape.nullable(),
        approvals_requested: z.array(z.string()).describe('action_ids Butler asked you to decide (see decide_approval)'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    (input, ctx) =>
      runTool('ask_butler', deps, async () => {
        const butler = await deps.users.findByUsername(BUTLER_USERNAME);
        if (!butler || butler.role !== 'BUTLER') throw Errors.unavailable('Butler is not available on this hub');
        const sent = await chatAndWait(deps, scope, butler, input.text, input.thread, deps.butlerAnswerMs, progressNotifier(ctx));
        return {
          message_id: sent.message_id,
          thread_id: sent.thread_id,
          status: sent.answer ? ('answered' as const) : ('no_answer_yet' as const),
          answer: sent.answer ? { id: sent.answer.id, text: sent.answer.text, timestamp: sent.answer.timestamp } : null,
          approvals_requested: sent.approvals_requested,
        };
      }),
  );

  server.registerTool(
    'read_history',
    {
      title: 'Read chat history',
      description: 'Read your chat with a peer (name or id) or one of your threads, oldest first; page back with before (a message id).',
      inputSchema: z.object({
        peer: z.string().trim().min(1).max(128).optional().describe('the agent, Butler or person you chatted with'),
        thread: z.number().int().min(1).optional().describe('one of your conversation threads'),
        before: z.number().int().min(1).optional().describe('only messages older than this id'),
        limit: z.number().int().min(1).max(200).default(50),
      }),
      outputSchema: z.object({ messages: z.array(historyRow) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) =>
      runTool('read_history', deps, async () => {
        if ((input.peer === undefined) === (input.thread === undefined)) throw Errors.badRequest('name either peer or thread (one of them)');
        const page = { limit: input.limit, before_id: input.before };
        const rows =
          input.thread !== undefined
            ? await deps.chat.threadMessages(scope.caller.user, input.thread, page)
            : await deps.chat.history(scope.caller.user, (await findUser(deps.users, input.peer!)).id, page);
        return { messages: rows.map(toHistoryRow) };
      }),
  );
}
