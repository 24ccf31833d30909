// The SDK's TaskStore on the hub's store (table a2a_tasks, both drivers): tasks survive restarts and
// are seen only by their caller, through the endpoint of their agent. A task's conversation thread
// is remembered with it, so later messages in its context land in the same thread.
import { Task, TaskState, taskStateToJSON, type ListTasksRequest, type ListTasksResponse } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Clock } from '../clock.js';
import type { A2aTasksRepo } from '../store/repositories/a2aTasks.js';
import { partiesOf } from './callContext.js';

const DEFAULT_PAGE_SIZE = 50;
/** The states a task ends in, as stored. */
export const TERMINAL_STATES = new Set(
  [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED].map(taskStateToJSON),
);
const MAX_PAGE_SIZE = 100;

/** Where each task's chat goes, set by the executor before it publishes the task. */
export interface ConversationMemo {
  remember(taskId: string, conversationId: number | null): void;
  of(taskId: string): number | null | undefined;
  forget(taskId: string): void;
}

export function createConversationMemo(): ConversationMemo {
  const byTask = new Map<string, number | null>();
  return {
    remember: (taskId, conversationId) => void byTask.set(taskId, conversationId),
    of: (taskId) => byTask.get(taskId),
    forget: (taskId) => void byTask.delete(taskId),
  };
}

function encodeCursor(statusAt: string, id: string): string {
  return Buffer.from(JSON.stringify([statusAt, id])).toString('base64url');
}

function decodeCursor(token: string): { statusAt: string; id: string } {
  try {
    const [statusAt, id] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof statusAt === 'string' && typeof id === 'string') return { statusAt, id };
  } catch {
    // answered below: a token the hub did not make
  }
  throw new RequestMalformedError('pageToken is not a token this hub gave');
}

export function createHubTaskStore(deps: {
  tasks: A2aTasksRepo;
  clock: Clock;
  conversations: ConversationMemo;
  /** A new task's row is stored (the open-task limit counts it from the store from then on). */
  onStored?(context: ServerCallContext): void;
}): TaskStore & {
  /** The conversation of an earlier task of this caller and agent in `contextId`. */
  conversationOf(contextId: string, context: ServerCallContext): Promise<number | null | undefined>;
} {
  const { tasks, clock, conversations } = deps;
  const scopeOf = (context: ServerCallContext) => {
    const { caller, target } = partiesOf(context);
    return { ownerId: caller.id, agentId: target.id };
  };

  return {
    async save(task, context) {
      const scope = scopeOf(context);
      const now = clock();
      const existing = await tasks.find(task.id, scope);
      const state = taskStateToJSON(task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED);
      // A task that ended stays ended: a slower consumer of the same events (a blocking call's drain
      // beside a subscriber) must not write an earlier state over it.
      if (existing && TERMINAL_STATES.has(existing.state) && !TERMINAL_STATES.has(state)) return;
      const saved = await tasks.save({
        id: task.id,
        owner_id: scope.ownerId,
        agent_id: scope.agentId,
        context_id: task.contextId,
        conversation_id: existing?.conversation_id ?? conversations.of(task.id) ?? null,
        state,
        status_at: task.status?.timestamp ?? now,
        task: JSON.stringify(Task.toJSON(task)),
        created_at: existing?.created_at ?? now,
        updated_at: now,
      });
      if (!saved) throw new RequestMalformedError('a task with this id belongs to another caller or agent');
      if (!existing) deps.onStored?.(context);
    },

    async load(taskId, context) {
      const row = await tasks.find(taskId, scopeOf(context));
      return row === undefined ? undefined : Task.fromJSON(JSON.parse(row.task));
    },

    async list(params: ListTasksRequest, context): Promise<ListTasksResponse> {
      const pageSize = Math.min(params.pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
      const state = params.status !== undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED ? taskStateToJSON(params.status) : undefined;
      const { rows, total } = await tasks.list({
        ...scopeOf(context),
        contextId: params.contextId || undefined,
        state,
        statusAfter: params.statusTimestampAfter ? new Date(params.statusTimestampAfter).toISOString() : undefined,
        after: params.pageToken ? decodeCursor(params.pageToken) : undefined,
        limit: pageSize + 1,
      });
      const page = rows.slice(0, pageSize);
      const last = page.at(-1);
      return {
        tasks: page.map((row) => {
          const task = Task.fromJSON(JSON.parse(row.task));
          if (!params.includeArtifacts) task.artifacts = [];
          return task;
        }),
        nextPageToken: rows.length > pageSize && last ? encodeCursor(last.status_at, last.id) : '',
        pageSize,
        totalSize: total,
      };
    },

    conversationOf: (contextId, context) => tasks.conversationOf(contextId, scopeOf(context)),
  };
}
