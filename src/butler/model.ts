// Butler's language model: one streamed Chat Completions call per step, over any OpenAI-compatible
// endpoint (`POST <base URL>/chat/completions` with `stream: true`, answered with Server-Sent
// Events). Text deltas are handed out as they arrive; tool calls are assembled from their
// fragments. Every failure becomes a ModelError whose message is fit for the asker: it names what
// went wrong, never the endpoint's credentials.
//
// The request and the stream are handled here, over undici's kept-alive pool (httpPost.ts) with a
// lean SSE parser, rather than with the `openai` client: at a thousand conversations its request
// building and stream parsing (web streams over fetch) were a sixth of the hub's CPU. Only its
// message and tool types are used.
import { StringDecoder } from 'node:string_decoder';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { createPoster, type PostHandlers } from './httpPost.js';
import { createSseParser, type SseParser } from './sse.js';

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
  /** Whose call this is (one key per conversation): calls wait their turn hub-wide, round-robin by key. */
  queueKey?: string;
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
  /** Connections kept open between calls (the most calls that run at once); 256 when not given. */
  keepConnections?: number;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** A short, safe description of a failed call. */
export function describeModelFailure(err: unknown): string {
  if (err instanceof ModelError) return err.message;
  return "the language model's answer broke off";
}

export function createOpenAiModel(settings: ModelSettings): LanguageModel {
  const url = completionsUrl(settings.baseUrl);
  // Keep-alive: a thousand conversations reuse their connections instead of opening one per step.
  // As many idle connections kept as calls may run at once: with fewer, a busy hub closed
  // connections after each call and opened new ones for the next.
  const poster = createPoster(url, {
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      // Local OpenAI-compatible servers often need no key; the header is sent as the official client sends it.
      authorization: `Bearer ${settings.apiToken ?? 'none'}`,
      'user-agent': 'agent-hub',
    },
    keepConnections: settings.keepConnections ?? 256,
  });
  const opening = Buffer.from(`{"model":${JSON.stringify(settings.name)},"messages":`);
  const closing = Buffer.from(`,"stream":true}`);
  // Every step of every answer sends the same tool list (a list is never changed once made): its JSON is encoded once.
  let lastTools: { list: readonly ModelTool[]; closing: Buffer } | undefined;
  const closingWith = (list: readonly ModelTool[]) => {
    if (lastTools?.list !== list) lastTools = { list, closing: Buffer.from(`,"stream":true,"tools":${JSON.stringify(list)}}`) };
    return lastTools.closing;
  };
  const silence = () => new ModelError(`the language model sent nothing for ${seconds(settings.idleTimeoutMs)}`);

  return {
    name: settings.name,
    step(messages, tools, { signal, onDelta }) {
      // The body as JSON.stringify writes `{ model, messages, stream: true, tools }` (no tools key
      // without tools), in parts: only the messages are encoded per call, and never copied into one string.
      const body = [opening, Buffer.from(JSON.stringify(messages)), tools.length > 0 ? closingWith(tools) : closing];
      return new Promise<ModelStep>((resolve, reject) => {
        let text = '';
        const calls: Array<{ id: string; name: string; arguments: string }> = [];
        let settled = false;
        let finished = false;
        let idle: NodeJS.Timeout | undefined;
        /** When the endpoint last sent something; one timer checks it, rather than a new timer per chunk. */
        let heardAt = 0;

        const cleanup = () => {
          clearTimeout(idle);
          signal.removeEventListener('abort', onAbort);
        };
        const fail = (err: unknown) => {
          if (settled) return;
          settled = true;
          cleanup();
          exchange.abort();
          reject(err);
        };
        const onAbort = () => fail(signal.reason);
        const checkIdle = () => {
          const quiet = performance.now() - heardAt;
          if (quiet >= settings.idleTimeoutMs) fail(silence());
          else idle = setTimeout(checkIdle, settings.idleTimeoutMs - quiet);
        };
        const heard = () => {
          heardAt = performance.now();
          idle ??= setTimeout(checkIdle, settings.idleTimeoutMs);
        };

        // One Chat Completions chunk: text deltas go out at once, tool calls are put together from their fragments.
        const onEvent = (data: string, event: string | undefined) => {
          if (settled || finished) return;
          if (data === '[DONE]') {
            finished = true;
            return;
          }
          let chunk: StreamChunk;
          try {
            chunk = JSON.parse(data) as StreamChunk;
          } catch (err) {
            return fail(new ModelError('the language model sent an event that is not JSON', err));
          }
          // An error mid-stream comes as an `error` event or as a chunk with an `error` object.
          if (event === 'error' || chunk.error) return fail(new ModelError(`the language model reported an error${detailOf(chunk.error ?? chunk)}`));
          const delta = chunk.choices?.[0]?.delta;
          if (!delta) return;
          if (typeof delta.content === 'string' && delta.content.length > 0) {
            text += delta.content;
            onDelta(delta.content);
          }
          if (!delta.tool_calls) return;
          for (const part of delta.tool_calls) {
            const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
            if (part.id) call.id = part.id;
            if (part.function?.name) call.name += part.function.name;
            if (part.function?.arguments) call.arguments += part.function.arguments;
          }
        };

        let parser: SseParser | undefined;
        /** A failed call's status, with the start of its body for the error's message. */
        let failedStatus = 0;
        let errorBody: StringDecoder | undefined;
        let errorText = '';
        const handlers: PostHandlers = {
          head(status) {
            heard();
            if (status >= 200 && status <= 299) parser = createSseParser(onEvent);
            else {
              failedStatus = status;
              errorBody = new StringDecoder('utf8');
            }
          },
          data(chunk) {
            heard();
            if (parser) parser.feed(chunk);
            else if (errorText.length < MAX_ERROR_BODY) errorText += errorBody!.write(chunk);
          },
          end() {
            if (!parser) return fail(new ModelError(`the language model answered HTTP ${failedStatus}${detailOf(errorOf(errorText + errorBody!.end()))}`));
            parser.end();
            if (settled) return;
            settled = true;
            cleanup();
            resolve({ text, toolCalls: calls.filter(Boolean).map((c, i) => ({ ...c, id: c.id || `call_${i}` })) });
          },
          error(err, headCame) {
            fail(new ModelError(headCame ? "the language model's answer broke off" : 'the language model could not be reached', err));
          },
        };
        if (signal.aborted) return reject(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
        heard();
        // No handler runs before this returns: each one waits for the connection's events.
        const exchange = poster.post(body, handlers);
      });
    },
  };
}

/** `<base URL>/chat/completions`, keeping any query the base URL carries. */
function completionsUrl(baseUrl: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  return url;
}

/** The parts of a streamed chunk Butler reads. */
interface StreamChunk {
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
  }>;
  error?: unknown;
}

/** Error bodies are read this far, for their message. */
const MAX_ERROR_BODY = 16_384;

/** The `error` object of an error answer's JSON body, if it is one. */
function errorOf(body: string): unknown {
  try {
    return (JSON.parse(body) as { error?: unknown } | null)?.error;
  } catch {
    return undefined; // not JSON: the status alone says it
  }
}

/** `: <message>` of an error object that has one, cut short; otherwise nothing. */
function detailOf(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && message.trim() ? `: ${message.trim().slice(0, 200)}` : '';
}
