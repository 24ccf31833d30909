// One chat to a remote A2A agent, carried out: the CHAT addressed to the agent becomes an A2A message
// (SendStreamingMessage when the card streams, SendMessage otherwise), in a context per hub thread so
// the agent sees one conversation (Butler's command arrives as the command, `hub.directive` in the
// message's metadata); its events come back as frames from the agent through the normal
// pipeline (stored before delivered): each artifact chunk a CHAT_STREAM, then the whole answer as the
// stored CHAT (with the stream's id) and the stream's end. An answer to Butler carries the stream id of
// Butler's request, which is how Butler's relay matches it (wire.md §5). A chat carried again (the hub
// died before its carried mark moved) goes with the same A2A messageId, its answer streams under the
// same stream id (so the final CHAT ends the stream the crash cut, for every reader), and is stored once
// (messageId.ts).
import { Message, TaskState, taskStateToJSON, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { Accepted, MessageInput } from '../../delivery/types.js';
import { DIRECTIVE_PREFIX } from '../../protocol/butler.js';
import type { MessageFrame } from '../../protocol/frames.js';
import { answerLocalId, answerStreamId } from './messageId.js';

export interface ForwardDeps {
  client: Client;
  streaming: boolean;
  /** Posts a frame as the remote agent (the pipeline, with the agent as sender). */
  post(input: MessageInput): Promise<Accepted>;
  /** The A2A messageId of a chat, the same on every try (messageId.ts). */
  messageIdOf(chatId: number): string;
  /** Remote tasks waiting for more input, by context: the next message in the context continues them. */
  openTasks: Map<string, string>;
  signal: AbortSignal;
}

const TERMINAL = new Set<TaskState>([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const WAITING = new Set<TaskState>([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

export const textOfParts = (parts: readonly Part[] | undefined): string =>
  (parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

/** The A2A context of a hub conversation: its thread, or the pair when it has none (Butler's requests). */
export const contextIdOf = (frame: MessageFrame, agentId: number): string =>
  frame.conversation_id ? `hub-thread-${frame.conversation_id}` : `hub-pair-${frame.sender_id}-${agentId}`;

/** A call that failed; `report` posts one line to the sender as the agent's answer (same stream id, same thread). */
export class CallFailed extends Error {
  override name = 'CallFailed';
  constructor(
    override readonly cause: unknown,
    readonly report: (line: string) => Promise<Accepted>,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** What the agent said, gathered from its events in order. */
class Answer {
  /** Artifact text streamed so far (sent as chunks). */
  streamed = '';
  /** The last status or direct message text. */
  said = '';
  state: TaskState | undefined;
  taskId: string | undefined;

  get text(): string {
    return this.streamed || this.said;
  }

  task(task: Task): void {
    this.taskId = task.id;
    this.status(task.status?.state, textOfParts(task.status?.message?.parts));
    const artifacts = task.artifacts.map((a) => textOfParts(a.parts)).join('');
    if (artifacts && !this.streamed) this.said = artifacts;
  }

  status(state: TaskState | undefined, text: string): void {
    if (state !== undefined) this.state = state;
    if (text) this.said = text;
  }
}

/** Carries `frame` (a stored CHAT addressed to the agent) to the agent; resolves when its answer is posted. */
export async function forwardChat(deps: ForwardDeps, frame: MessageFrame, agentId: number): Promise<void> {
  const raw = typeof frame.payload === 'string' ? frame.payload : JSON.stringify(frame.payload);
  // Butler's command reaches an A2A agent as the command itself; the metadata says it is one (approved by a human).
  const directive = raw.startsWith(DIRECTIVE_PREFIX);
  const text = directive ? raw.slice(DIRECTIVE_PREFIX.length) : raw;
  const contextId = contextIdOf(frame, agentId);
  const taskId = deps.openTasks.get(contextId);
  deps.openTasks.delete(contextId);
  const metadata = { 'hub.sender': frame.sender_name, ...(directive ? { 'hub.directive': true } : {}) };
  const messageId = deps.messageIdOf(frame.id!);
  const message = Message.fromJSON({
    messageId,
    role: 'ROLE_USER',
    parts: [{ text }],
    contextId,
    metadata,
    ...(taskId ? { taskId } : {}),
  });
  const request = { message, configuration: undefined, metadata: {}, tenant: '' };
  const base = { target_id: frame.sender_id, ...(frame.conversation_id ? { conversation_id: frame.conversation_id } : {}) };
  // The answer (or the failure line) is stored under a local_id of the chat: a chat carried again after a crash is answered once.
  const answerId = answerLocalId(frame.id!);
  // Butler's request names its stream: the answer must carry it. Anyone else's gets one of the chat's own.
  const streamId = frame.stream_id ?? answerStreamId(messageId);
  const answer = new Answer();
  let chunks = 0;
  const chunk = async (piece: string) => {
    if (!piece) return;
    answer.streamed += piece;
    chunks++;
    await deps.post({ type: 'CHAT_STREAM', payload: piece, stream_id: streamId, ...base });
  };
  try {
    if (deps.streaming) {
      for await (const event of deps.client.sendMessageStream(request, { signal: deps.signal })) await take(event, answer, chunk);
    } else {
      const result = await deps.client.sendMessage(request, { signal: deps.signal });
      if ('status' in result) answer.task(result as Task);
      else answer.status(TaskState.TASK_STATE_COMPLETED, textOfParts((result as Message).parts));
    }
  } catch (err) {
    // The stream that began ends without an answer (an A2A caller's task fails on it); the caller learns why.
    if (chunks > 0) await deps.post({ type: 'CHAT_STREAM_END', payload: '', stream_id: streamId, ...base }).catch(() => undefined);
    throw new CallFailed(err, (line) => deps.post({ type: 'CHAT', payload: line, stream_id: streamId, local_id: answerId, ...base }));
  }
  if (answer.state !== undefined && WAITING.has(answer.state) && answer.taskId) deps.openTasks.set(contextId, answer.taskId);
  const failed = answer.state !== undefined && TERMINAL.has(answer.state) && answer.state !== TaskState.TASK_STATE_COMPLETED;
  const reply = failed ? failedReply(answer) : answer.text || '(the agent answered with no text)';
  await deps.post({ type: 'CHAT', payload: reply, stream_id: streamId, local_id: answerId, ...base });
  if (chunks > 0) await deps.post({ type: 'CHAT_STREAM_END', payload: '', stream_id: streamId, ...base });
}

/** A task that ended without completing: what it streamed, then the state and the agent's last word on it (its reason), cut short. */
function failedReply(answer: Answer): string {
  const reason = answer.said.replace(/\s+/g, ' ').trim();
  const ended = `(the agent's task ended ${taskStateToJSON(answer.state!)}${reason ? `: ${reason.length > 200 ? `${reason.slice(0, 199)}…` : reason}` : ''})`;
  return answer.streamed ? `${answer.streamed}\n\n${ended}` : ended;
}

async function take(event: StreamResponse, answer: Answer, chunk: (text: string) => Promise<void>): Promise<void> {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'message':
      answer.status(TaskState.TASK_STATE_COMPLETED, textOfParts(payload.value.parts));
      return;
    case 'task':
      answer.task(payload.value);
      return;
    case 'statusUpdate':
      answer.taskId ??= payload.value.taskId;
      answer.status(payload.value.status?.state, textOfParts(payload.value.status?.message?.parts));
      return;
    case 'artifactUpdate':
      answer.taskId ??= payload.value.taskId;
      await chunk(textOfParts(payload.value.artifact?.parts));
      return;
    default:
      return;
  }
}
