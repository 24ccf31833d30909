// The SDK's AgentExecutor for every agent on the hub: a message sent to an agent's endpoint becomes
// an ordinary stored CHAT from the caller to that agent, in the thread its contextId names (a new
// thread when the context is new), through the same pipeline and routing rules as a socket's frame.
// The agent's answer ends the task: stream chunks become artifact updates in order, the final CHAT
// completes it (a stream that ends without one fails it). Butler's approval flow maps to
// AUTH_REQUIRED, and a refusal or an expiry to REJECTED. An agent that is offline keeps the task
// SUBMITTED until it connects and answers (the resume path delivers the stored CHAT).
import { randomUUID } from 'node:crypto';
import { Message, TaskState, taskStateToJSON, type Part } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { toPrincipal } from '../delivery/directory.js';
import type { Accepted, MessageInput, Principal } from '../delivery/types.js';
import type { ThreadsRepo } from '../store/repositories/threads.js';
import type { UserRow } from '../store/schema.js';
import { partiesOf } from './callContext.js';
import type { A2aMeter } from './metrics.js';
import type { AuthOutcome, ReplyTracker, Waiter } from './replies.js';
import type { ConversationMemo } from './taskStore.js';

export interface ExecutorDeps {
  pipeline: { post(sender: Principal, input: MessageInput): Promise<Accepted> };
  replies: ReplyTracker;
  threads: Pick<ThreadsRepo, 'insert'>;
  /** The conversation of an earlier task in the same context (taskStore.conversationOf). */
  conversationOf(contextId: string, context: RequestContext['context']): Promise<number | null | undefined>;
  conversations: ConversationMemo;
  meter: Pick<A2aMeter, 'taskState'>;
  /** Cluster mode: asks the node running a task this node does not run to cancel it. */
  cancelElsewhere(taskId: string): void;
  clock: Clock;
  logger: Logger;
}

const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

const THREAD_TITLE_CHARS = 60;

/** The text of a message: its text parts joined; other parts are refused (the hub's chat is text). */
function textOf(parts: readonly Part[]): string | undefined {
  if (parts.length === 0 || parts.some((p) => p.content?.$case !== 'text')) return undefined;
  return parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
}

const textPart = (text: string) => ({ text, mediaType: 'text/plain' });

interface Running {
  contextId: string;
  bus: ExecutionEventBus;
  waiter?: Waiter;
  finish(): void;
}

export function createHubExecutor(deps: ExecutorDeps): AgentExecutor & { cancelHere(taskId: string): void } {
  const { replies, clock, logger } = deps;
  const running = new Map<string, Running>();

  /** A new thread for a human's new context; machines have none (threads pair a human and a machine). */
  async function conversationFor(context: RequestContext, caller: UserRow, target: UserRow, text: string): Promise<number | null> {
    const known = await deps.conversationOf(context.contextId, context.context);
    if (known !== undefined) return known;
    if (caller.role !== 'ADMIN' && caller.role !== 'MEMBER') return null;
    const now = clock();
    const title = text.replace(/\s+/g, ' ').trim().slice(0, THREAD_TITLE_CHARS) || `A2A: ${target.username}`;
    const row = await deps.threads.insert({
      owner_user_id: caller.id,
      peer_user_id: target.id,
      channel_kind: target.role === 'BUTLER' ? 'butler_direct' : 'agent_direct',
      title,
      is_default: 0,
      created_at: now,
      updated_at: now,
    });
    return row.id;
  }

  function cancel(taskId: string, entry: Running): void {
    // Answers that arrive later are stored as chat; they no longer reach the task.
    entry.waiter?.stop();
    deps.meter.taskState(taskStateToJSON(TaskState.TASK_STATE_CANCELED));
    entry.bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: entry.contextId,
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date(clock()).toISOString() },
        metadata: {},
      }),
    );
    entry.finish();
  }

  return {
    async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
      const { caller, target } = partiesOf(context.context);
      const { taskId, contextId } = context;
      const at = () => new Date(clock()).toISOString();
      let state: TaskState = context.task?.status?.state ?? TaskState.TASK_STATE_SUBMITTED;
      const status = (next: TaskState, text?: string) => {
        state = next;
        deps.meter.taskState(taskStateToJSON(next));
        const message =
          text === undefined ? undefined : Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_AGENT', taskId, contextId, parts: [textPart(text)] });
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: { state: next, message, timestamp: at() }, metadata: {} }));
      };

      const text = textOf(context.userMessage.parts);
      const conversationId = text === undefined ? null : await conversationFor(context, caller, target, text);
      deps.conversations.remember(taskId, conversationId);
      bus.publish(
        AgentEvent.task(
          context.task ?? {
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: at() },
            artifacts: [],
            history: [context.userMessage],
            metadata: {},
          },
        ),
      );
      if (text === undefined) {
        status(TaskState.TASK_STATE_REJECTED, "the hub's agents take text: send text parts only");
        bus.finished();
        return;
      }

      const artifactId = `answer-${taskId}`;
      let streamed = false;
      /**
       * Butler's turn that asks for an approval answers twice: first that it asked (whenever that comes,
       * before or after the human decides), then, once approved, the command's outcome, which ends the task.
       */
      let askingAnswerDue = false;
      await new Promise<void>((resolve) => {
        const entry: Running = {
          contextId,
          bus,
          finish: () => {
            entry.waiter?.stop();
            running.delete(taskId);
            resolve();
          },
        };
        running.set(taskId, entry);
        const end = (final: TaskState, message?: string): boolean => {
          if (TERMINAL.has(state)) return true;
          status(final, message);
          entry.finish();
          return true;
        };
        /** One piece of the answer's one artifact: a stream chunk, or the stored answer's whole text last. */
        const publishText = (value: string, append: boolean, lastChunk: boolean) =>
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: {
                artifactId,
                name: 'answer',
                description: '',
                parts: [{ content: { $case: 'text', value }, mediaType: 'text/plain', filename: '', metadata: {} }],
                metadata: {},
                extensions: [],
              },
              append,
              lastChunk,
              metadata: {},
            }),
          );
        entry.waiter = replies.wait(toPrincipal(caller), target.id, conversationId, {
          chunk(delta) {
            if (TERMINAL.has(state)) return;
            // The first words of an answer make the task WORKING; Butler's words while a command waits do not.
            if (state === TaskState.TASK_STATE_SUBMITTED) status(TaskState.TASK_STATE_WORKING);
            publishText(delta, streamed, false);
            streamed = true;
          },
          answer(reply) {
            if (TERMINAL.has(state)) return true;
            // The stored answer carries the whole text: it replaces what the chunks built.
            publishText(reply, false, true);
            // A later stream starts the artifact over (Butler answers again once a command is decided).
            streamed = false;
            if (askingAnswerDue) {
              askingAnswerDue = false;
              // While the command waits for a human the task keeps waiting, with Butler's words.
              if (state === TaskState.TASK_STATE_AUTH_REQUIRED) status(TaskState.TASK_STATE_AUTH_REQUIRED, reply);
              return false;
            }
            return end(TaskState.TASK_STATE_COMPLETED, reply);
          },
          streamEnded() {
            return end(TaskState.TASK_STATE_FAILED, `${target.username} ended its answer without sending it`);
          },
          authRequired(request) {
            if (TERMINAL.has(state)) return;
            askingAnswerDue = true;
            status(TaskState.TASK_STATE_AUTH_REQUIRED, request);
          },
          authDecided(outcome: AuthOutcome) {
            if (TERMINAL.has(state)) return true;
            if (outcome !== 'APPROVED')
              return end(TaskState.TASK_STATE_REJECTED, outcome === 'REJECTED' ? 'a human refused the command' : 'nobody approved the command in time');
            status(TaskState.TASK_STATE_WORKING, 'approved: the command is on its way');
            return false;
          },
        });
        deps.pipeline
          .post(toPrincipal(caller), {
            type: 'CHAT',
            payload: text,
            target_id: target.id,
            ...(conversationId === null ? {} : { conversation_id: conversationId }),
          })
          .catch((err: unknown) => {
            // The hub's refusal (routing rules, limits, the store away) fails the task with its reason.
            const reason = err instanceof Error ? err.message : 'the message was not accepted';
            logger.info({ taskId, callerId: caller.id, agentId: target.id, reason }, 'an A2A message was refused');
            end(TaskState.TASK_STATE_FAILED, reason);
          });
      });
      logger.debug({ taskId, state: taskStateToJSON(state) }, 'A2A task settled');
      deps.conversations.forget(taskId);
      bus.finished();
    },

    async cancelTask(taskId: string): Promise<void> {
      const entry = running.get(taskId);
      // Not running here: the node that runs it cancels it, and its CANCELED comes back on the bus.
      if (!entry) return deps.cancelElsewhere(taskId);
      cancel(taskId, entry);
    },

    /** A cancel forwarded from another node, for a task running here. */
    cancelHere(taskId: string): void {
      const entry = running.get(taskId);
      if (entry) cancel(taskId, entry);
    },
  };
}
