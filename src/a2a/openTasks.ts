// A cap on the tasks one caller has open (A2A_MAX_OPEN_TASKS): a task to an offline agent stays
// SUBMITTED, stored, until the agent answers, so without it a caller could grow the store without
// bound. A message that would open a new task is refused once the caller's open tasks (stored and
// not ended, to any agent) reach the cap; a message to a task already open is never refused.
//
// The refusal's code: A2A's error table has none for a quota, and borrowing one would mislead a
// client (-32004 UnsupportedOperation says the operation does not exist here: never retry; -32602
// says the request is malformed). JSON-RPC 2.0 leaves -32000..-32099 to the server; A2A's own errors
// take -32001 and up, so the hub answers with -32000, "server error", and a message naming the limit.
import type { SendMessageRequest } from '@a2a-js/sdk';
import { JsonRpcTransportError } from '@a2a-js/sdk/errors';
import { DefaultRequestHandler, type ServerCallContext } from '@a2a-js/sdk/server';
import type { A2aTasksRepo } from '../store/repositories/a2aTasks.js';
import { partiesOf } from './callContext.js';

/** The JSON-RPC error code of the refusal (see the header). */
export const OPEN_TASK_LIMIT_CODE = -32000;

export function openTaskLimitError(max: number): JsonRpcTransportError {
  const message = `too many open tasks: a caller may have ${max} tasks open at once (A2A_MAX_OPEN_TASKS); wait for some to end or cancel them, then send again`;
  return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code: OPEN_TASK_LIMIT_CODE, message } });
}

export function createOpenTaskLimit(deps: { tasks: Pick<A2aTasksRepo, 'countOpen'>; max: number; ended: readonly string[] }) {
  const { tasks, max, ended } = deps;
  /**
   * Per caller, the calls admitted here whose task is not stored yet: counted with the stored ones,
   * so calls sent side by side cannot all pass the same count.
   */
  const pending = new Map<number, Set<ServerCallContext>>();

  function settle(callerId: number, context: ServerCallContext): void {
    const mine = pending.get(callerId);
    if (!mine?.delete(context)) return;
    if (mine.size === 0) pending.delete(callerId);
  }

  return {
    /**
     * Admits a SendMessage, or throws the refusal; the returned release runs when the call ends.
     * Reserved before the count is read: two calls racing for the last place may both be refused,
     * never both admitted.
     */
    async admit(params: SendMessageRequest, context: ServerCallContext): Promise<() => void> {
      if (params.message?.taskId) return () => undefined;
      const callerId = partiesOf(context).caller.id;
      let mine = pending.get(callerId);
      if (!mine) pending.set(callerId, (mine = new Set()));
      mine.add(context);
      const release = () => settle(callerId, context);
      // Counted before the read: a call stored (and so settled) while the read runs may be missing from
      // the read's snapshot, and would be missing from a count of the reservations taken after it too.
      // Taken now, it is counted once or, stored before the snapshot, twice: a refusal, never one too many.
      const reserved = mine.size;
      try {
        const open = await tasks.countOpen(callerId, ended);
        if (open + reserved > max) throw openTaskLimitError(max);
      } catch (err) {
        release();
        throw err;
      }
      return release;
    },

    /** The task of a call is stored: from now on the store counts it. */
    stored(context: ServerCallContext): void {
      settle(partiesOf(context).caller.id, context);
    },
  };
}
export type OpenTaskLimit = ReturnType<typeof createOpenTaskLimit>;

/** The SDK's request handler with the cap in front of both ways of sending a message. */
export class LimitedRequestHandler extends DefaultRequestHandler {
  readonly #limit: OpenTaskLimit;

  constructor(limit: OpenTaskLimit, ...args: ConstructorParameters<typeof DefaultRequestHandler>) {
    super(...args);
    this.#limit = limit;
  }

  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): ReturnType<DefaultRequestHandler['sendMessage']> {
    const release = await this.#admit(params, context);
    try {
      return await super.sendMessage(params, context);
    } finally {
      release();
    }
  }

  override async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): ReturnType<DefaultRequestHandler['sendMessageStream']> {
    const release = await this.#admit(params, context);
    try {
      yield* super.sendMessageStream(params, context);
    } finally {
      release();
    }
  }

  #admit(params: SendMessageRequest, context: ServerCallContext): Promise<() => void> {
    return this.#limit.admit(params, context);
  }
}
