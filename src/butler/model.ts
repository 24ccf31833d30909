// Butler's language model: one streamed Chat Completions call per step, over any OpenAI-compatible
// endpoint (the `openai` client with a base URL). Text deltas are handed out as they arrive; tool
// calls are assembled from their fragments. Every failure becomes a ModelError whose message is
// fit for the asker: it names what went wrong, never the endpoint's credentials.
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

export type ModelMessage = ChatCompletionMessageParam;
export type ModelTool = ChatCompletionTool;

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced; validated by the tool, not here. */
  arguments: string;
}

export interface ModelStep {
  text: string;
  toolCalls: ToolCall[];
}

export interface StepOptions {
  signal: AbortSignal;
  /** Each text delta as it arrives. */
  onDelta(text: string): void;
}

export interface LanguageModel {
  readonly name: string;
  step(messages: readonly ModelMessage[], tools: readonly ModelTool[], options: StepOptions): Promise<ModelStep>;
}

export class ModelError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ModelError';
  }
}

export interface ModelSettings {
  baseUrl: string;
  apiToken?: string;
  name: string;
  /** A stream that sends nothing for this long is given up. */
  idleTimeoutMs: number;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** A short, safe description of a failed call. */
export function describeModelFailure(err: unknown, idleTimeoutMs: number): string {
  if (err instanceof ModelError) return err.message;
  if (err instanceof OpenAI.APIConnectionTimeoutError) return `the language model did not answer within ${seconds(idleTimeoutMs)}`;
  if (err instanceof OpenAI.APIConnectionError) return 'the language model could not be reached';
  if (err instanceof OpenAI.APIError && err.status !== undefined) {
    const detail = (err.error as { message?: unknown } | undefined)?.message;
    const text = typeof detail === 'string' && detail.trim() ? `: ${detail.trim().slice(0, 200)}` : '';
    return `the language model answered HTTP ${err.status}${text}`;
  }
  return "the language model's answer broke off";
}

export function createOpenAiModel(settings: ModelSettings): LanguageModel {
  const client = new OpenAI({
    baseURL: settings.baseUrl,
    // Local OpenAI-compatible servers often need no key; the client insists on one.
    apiKey: settings.apiToken ?? 'none',
    // A retry would replay a half-streamed answer; the asker gets a clear failure instead.
    maxRetries: 0,
    timeout: settings.idleTimeoutMs,
  });

  return {
    name: settings.name,
    async step(messages, tools, { signal, onDelta }) {
      // Our own controller also fires when the stream goes quiet for too long.
      const controller = new AbortController();
      const abort = () => controller.abort();
      signal.addEventListener('abort', abort, { once: true });
      let idle: NodeJS.Timeout | undefined;
      let idleExpired = false;
      const armIdle = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          idleExpired = true;
          controller.abort();
        }, settings.idleTimeoutMs);
      };
      try {
        armIdle();
        const stream = await client.chat.completions.create(
          { model: settings.name, messages: [...messages], stream: true, ...(tools.length > 0 ? { tools: [...tools] } : {}) },
          { signal: controller.signal },
        );
        let text = '';
        const calls: Array<{ id: string; name: string; arguments: string }> = [];
        for await (const chunk of stream) {
          armIdle();
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (typeof delta.content === 'string' && delta.content.length > 0) {
            text += delta.content;
            onDelta(delta.content);
          }
          for (const part of delta.tool_calls ?? []) {
            const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
            if (part.id) call.id = part.id;
            if (part.function?.name) call.name += part.function.name;
            if (part.function?.arguments) call.arguments += part.function.arguments;
          }
        }
        // The client ends an aborted stream quietly, as if it were complete; it was not.
        if (controller.signal.aborted)
          throw signal.aborted ? signal.reason : new ModelError(`the language model sent nothing for ${seconds(settings.idleTimeoutMs)}`);
        const toolCalls = calls.filter(Boolean).map((c, i) => ({ ...c, id: c.id || `call_${i}` }));
        return { text, toolCalls };
      } catch (err) {
        if (signal.aborted) throw err;
        if (idleExpired) throw new ModelError(`the language model sent nothing for ${seconds(settings.idleTimeoutMs)}`, err);
        throw new ModelError(describeModelFailure(err, settings.idleTimeoutMs), err);
      } finally {
        clearTimeout(idle);
        signal.removeEventListener('abort', abort);
      }
    },
  };
}
