// A fake OpenAI-compatible Chat Completions server on loopback: `POST /v1/chat/completions` with
// `stream: true` answers Server-Sent Events exactly as the real API does (chunk objects, tool-call
// fragments, `data: [DONE]`). Each request is answered by the next scripted reply, or by the
// default responder; every request body is recorded for assertions.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptStep =
  | { content: string }
  | { toolCall: { name: string; arguments: string; id?: string } }
  /** The server waits this long before the next step (the model "thinking"). */
  | { delayMs: number }
  /** The connection is destroyed mid-stream. */
  | { breakOff: true }
  /** Nothing more is sent, and the response never ends. */
  | { hang: true };

export type Reply = { status: number; message: string } | { steps: ScriptStep[] };

export interface ModelRequest {
  model: string;
  messages: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  authorization?: string;
}

export interface FakeModel {
  /** For BUTLER_BASE_URL. */
  readonly baseUrl: string;
  readonly requests: ModelRequest[];
  /** Queues replies for the next requests, in order. */
  enqueue(...replies: Reply[]): void;
  /** Answers requests when the queue is empty. */
  setDefault(responder: (request: ModelRequest) => Reply): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ModelRequest[]>;
  close(): Promise<void>;
}

/** The text of the last user message of a request. */
export const lastUserText = (request: ModelRequest) => [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

/** A reply streaming `text` in `parts` deltas, `delayMs` apart. */
export function textReply(text: string, parts = 1, delayMs = 0): Reply {
  const size = Math.ceil(text.length / parts);
  const steps: ScriptStep[] = [];
  for (let i = 0; i < text.length; i += size) {
    if (delayMs > 0 && i > 0) steps.push({ delayMs });
    steps.push({ content: text.slice(i, i + size) });
  }
  return { steps };
}

export async function startFakeModel(): Promise<FakeModel> {
  const queue: Reply[] = [];
  const requests: ModelRequest[] = [];
  let waiters: Array<() => void> = [];
  let responder: (request: ModelRequest) => Reply = (request) => textReply(`You said: ${lastUserText(request)}`);
  const open = new Set<ServerResponse>();

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }

  const server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const body = (await readJson(req)) as ModelRequest;
      body.authorization = req.headers.authorization;
      requests.push(body);
      const wake = waiters;
      waiters = [];
      for (const w of wake) w();
      const reply = queue.shift() ?? responder(body);
      if ('status' in reply) {
        res.writeHead(reply.status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: reply.message, type: 'fake_error' } }));
        return;
      }
      open.add(res);
      res.on('close', () => open.delete(res));
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      const id = `chatcmpl-${requests.length}`;
      const chunk = (delta: object, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }));
      let toolIndex = 0;
      for (const step of reply.steps) {
        if (res.destroyed) return;
        if ('delayMs' in step) await new Promise((resolve) => setTimeout(resolve, step.delayMs));
        else if ('content' in step) res.write(chunk({ content: step.content }));
        else if ('toolCall' in step) {
          const index = toolIndex++;
          const callId = step.toolCall.id ?? `call_${requests.length}_${index}`;
          // Fragments, as the real API sends them: the name first, then the arguments in pieces.
          res.write(chunk({ tool_calls: [{ index, id: callId, type: 'function', function: { name: step.toolCall.name, arguments: '' } }] }));
          const args = step.toolCall.arguments;
          const half = Math.ceil(args.length / 2);
          for (const part of [args.slice(0, half), args.slice(half)]) {
            if (part) res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
          }
        } else if ('breakOff' in step) {
          res.destroy();
          return;
        } else if ('hang' in step) return;
      }
      res.write(chunk({}, toolIndex > 0 ? 'tool_calls' : 'stop'));
      res.end('data: [DONE]\n\n');
    })().catch((err: unknown) => {
      res.destroy(err instanceof Error ? err : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue(...replies) {
      queue.push(...replies);
    },
    setDefault(fn) {
      responder = fn;
    },
    async waitForRequests(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the fake model got ${requests.length} requests, expected ${count}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return requests.slice(0, count);
    },
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
