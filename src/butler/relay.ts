// Butler → agent requests and their answers (wire.md §5): each request is a stored CHAT from Butler
// with a fresh stream_id; the agent's CHAT back to Butler carrying that stream_id answers it. An
// answer without a stream_id goes to the oldest open request to that agent (older agents do not
// echo stream ids). No answer within the timeout rejects with a message fit for the asker.
import { systemTimers, type Timers } from '../clock.js';
import type { MessageFrame } from '../protocol/frames.js';
import type { Pipeline } from '../delivery/pipeline.js';
import { newStreamId } from './replyStream.js';
import type { Principal } from '../delivery/types.js';

export class RelayError extends Error {
  override name = 'RelayError';
}

interface OpenRequest {
  streamId: string;
  agentId: number;
  resolve(answer: string): void;
  reject(err: Error): void;
}

export interface AgentRelayDeps {
  pipeline: Pipeline;
  butler: Principal;
  timeoutMs: number;
  /** Runs the answer deadline (the hub's timers: a test moves them). */
  timers?: Timers;
}

export function createAgentRelay(deps: AgentRelayDeps) {
  const { pipeline, butler, timeoutMs } = deps;
  const timers = deps.timers ?? systemTimers;
  const byStream = new Map<string, OpenRequest>();
  /** Open requests per agent, oldest first. */
  const byAgent = new Map<number, OpenRequest[]>();

  function close(request: OpenRequest): void {
    byStream.delete(request.streamId);
    const list = byAgent.get(request.agentId);
    if (!list) return;
    const i = list.indexOf(request);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) byAgent.delete(request.agentId);
  }

  return {
    /**
     * Sends `text` to the agent and resolves with its answer. The request is stored before the
     * wait starts, so the agent finds it on resume too; the monitor copy goes to admins as usual.
     */
    async ask(agent: Principal, text: string, signal?: AbortSignal): Promise<string> {
      signal?.throwIfAborted();
      const streamId = newStreamId();
      let request!: OpenRequest;
      const answer = new Promise<string>((resolve, reject) => {
        request = { streamId, agentId: agent.id, resolve, reject };
      });
      // Settled by a timer or an abort even while the CHAT is still being stored.
      answer.catch(() => undefined);
      byStream.set(streamId, request);
      const list = byAgent.get(agent.id) ?? [];
      list.push(request);
      byAgent.set(agent.id, list);

      const timer = timers.setTimeout(
        () => request.reject(new RelayError(`${agent.username} did not answer within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
      const onAbort = () => request.reject(signal!.reason instanceof Error ? signal!.reason : new RelayError('cancelled'));
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await pipeline.post(butler, { type: 'CHAT', payload: text, target_id: agent.id, stream_id: streamId });
        return await answer;
      } finally {
        timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        close(request);
      }
    },

    /** Takes an agent's CHAT to Butler as the answer to an open request; false when it answers none. */
    claim(frame: MessageFrame): boolean {
      const request = frame.stream_id !== undefined ? byStream.get(frame.stream_id) : byAgent.get(frame.sender_id)?.[0];
      if (!request || request.agentId !== frame.sender_id) return false;
      close(request);
      request.resolve(typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload));
      return true;
    },

    /** Open requests, for inspection. */
    get open(): number {
      return byStream.size;
    },

    /** Fails every open request (the hub is stopping or was reset). */
    cancelAll(reason: string): void {
      for (const request of [...byStream.values()]) {
        close(request);
        request.reject(new RelayError(reason));
      }
    },
  };
}
export type AgentRelay = ReturnType<typeof createAgentRelay>;
