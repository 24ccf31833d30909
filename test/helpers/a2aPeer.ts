// A remote A2A agent built with the official SDK (@a2a-js/sdk's DefaultRequestHandler, an
// AgentExecutor, its JSON-RPC transport handler) served over node:http on loopback: its card at
// /.well-known/agent-card.json, its JSON-RPC endpoint at /a2a (answers as Server-Sent Events when
// streamed). The executor answers each message with `reply(text)` split into artifact chunks (or
// stops after the first, `cutWhen`), and records what it was sent and the bearer credential it came
// with. `stop` and `listen` again on the same port (the agent going away and coming back).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, formatSSEEvent, SSE_HEADERS, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';

/** A message the agent received: its text, A2A messageId, context, whether the hub marked it Butler's command, its credential. */
export interface PeerMessage {
  text: string;
  messageId: string;
  contextId: string;
  directive: boolean;
  authorization: string | undefined;
}

export interface A2aPeer {
  /** The card's URL (what an admin registers). */
  cardUrl: string;
  port: number;
  /** Each message's text, and the Authorization header it came with. */
  received: PeerMessage[];
  /** Resolves with the next message the agent receives. */
  nextMessage(): Promise<PeerMessage>;
  stop(): Promise<void>;
  /** Listens again on the same port. */
  listen(): Promise<void>;
  /**
   * How the next calls fail: the executor throws, the endpoint answers a JSON-RPC error, or the agent
   * goes away in the middle of the next call (its server stops: `listen` brings it back); undefined: they do not.
   */
  failWith: 'throw' | 'rpc-error' | 'vanish' | undefined;
  /** Messages whose text matches are received but not answered until the agent stops (a call in flight). */
  holdWhen: RegExp | undefined;
  /**
   * The next message whose text matches (one only) streams its first chunk, then is held until the
   * agent stops: an answer cut mid-stream. Resolves `streamCut` with its text once the chunk is sent.
   */
  cutWhen: RegExp | undefined;
  /** Resolves with the text of the message `cutWhen` held after its first chunk. */
  streamCut(): Promise<string>;
}

export interface A2aPeerOptions {
  name?: string;
  streaming?: boolean;
  /** The answer's chunks for a message's text (default: "echo: " and the text, in two chunks). */
  reply?: (text: string) => string[];
  /** How long the agent works on a message (by its text) before it answers (default: no time). */
  workMs?: (text: string) => number;
}

const textOf = (context: RequestContext) => context.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');

export async function startA2aPeer(options: A2aPeerOptions = {}): Promise<A2aPeer> {
  const name = options.name ?? 'remote-echo';
  const streaming = options.streaming ?? true;
  const reply = options.reply ?? ((text: string) => ['echo: ', text]);
  const received: A2aPeer['received'] = [];
  const waiters: Array<(m: A2aPeer['received'][number]) => void> = [];
  let port = 0;
  const authorizations = new Map<string, string | undefined>();

  let failWith: A2aPeer['failWith'];
  let holdWhen: RegExp | undefined;
  let cutWhen: RegExp | undefined;
  const cutWaiters: Array<(text: string) => void> = [];
  /** Ends the calls held by `holdWhen` (when the agent stops). */
  let releaseHeld = new AbortController();
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const text = textOf(context);
      const directive = context.userMessage.metadata?.['hub.directive'] === true;
      const messageId = context.userMessage.messageId;
      const entry = { text, messageId, contextId: context.contextId, directive, authorization: authorizations.get(messageId) };
      received.push(entry);
      waiters.shift()?.(entry);
      if (failWith === 'throw') throw new Error('the model behind the agent is down');
      const workMs = options.workMs?.(text) ?? 0;
      if (workMs > 0) await new Promise((resolve) => setTimeout(resolve, workMs));
      if (holdWhen?.test(text)) {
        const released = releaseHeld.signal;
        await new Promise((resolve) => released.addEventListener('abort', resolve, { once: true }));
        bus.finished();
        return;
      }
      const base = { taskId: context.taskId, contextId: context.contextId };
      bus.publish(
        AgentEvent.task({
          id: context.taskId,
          contextId: context.contextId,
          status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: undefined },
          artifacts: [],
          history: [],
          metadata: {},
        }),
      );
      const chunks = reply(text);
      const cut = cutWhen?.test(text) ?? false;
      if (cut) cutWhen = undefined;
      for (const [i, chunk] of chunks.entries()) {
        bus.publish(
          AgentEvent.artifactUpdate({
            ...base,
            artifact: {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [{ content: { $case: 'text', value: chunk }, mediaType: 'text/plain', metadata: {}, filename: '' }],
              metadata: {},
              extensions: [],
            },
            append: i > 0,
            lastChunk: i === chunks.length - 1,
            metadata: {},
          }),
        );
        if (cut) {
          const released = releaseHeld.signal;
          cutWaiters.shift()?.(text);
          await new Promise((resolve) => released.addEventListener('abort', resolve, { once: true }));
          bus.finished();
          return;
        }
      }
      bus.publish(
        AgentEvent.statusUpdate({ ...base, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined }, metadata: {} }),
      );
      bus.finished();
    },
    async cancelTask() {},
  };

  const cardJson = () => ({
    name,
    description: `${name}, an A2A agent built with @a2a-js/sdk`,
    supportedInterfaces: [{ url: `http://127.0.0.1:${port}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming, pushNotifications: false, extensions: [] },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Says back what it is told', tags: ['echo'], examples: [] }],
  });
  const card = () => AgentCard.fromJSON(cardJson());
  const handler = new DefaultRequestHandler(card(), new InMemoryTaskStore(), executor);
  const transport = new JsonRpcTransportHandler(handler);

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(AgentCard.toJSON(card())));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/a2a') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const messageId = (body.params as { message?: { messageId?: string } } | undefined)?.message?.messageId;
    if (messageId) authorizations.set(messageId, req.headers.authorization);
    if (failWith === 'vanish') {
      failWith = undefined;
      await stop();
      return;
    }
    if (failWith === 'rpc-error') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id ?? null, error: { code: -32603, message: 'quota exceeded for this caller' } }));
      return;
    }
    const answer = await transport.handle(body, new ServerCallContext({ requestedVersion: '1.0' }));
    if (answer && typeof answer === 'object' && Symbol.asyncIterator in answer) {
      res.writeHead(200, SSE_HEADERS);
      for await (const event of answer as AsyncGenerator<unknown>) res.write(formatSSEEvent(event));
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
  }

  let server: Server | undefined;
  async function stop(): Promise<void> {
    const s = server;
    server = undefined;
    releaseHeld.abort();
    releaseHeld = new AbortController();
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
  async function listen(): Promise<void> {
    server = createServer((req, res) => void serve(req, res).catch(() => res.writeHead(500).end()));
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }
  await listen();

  return {
    get cardUrl() {
      return `http://127.0.0.1:${port}/.well-known/agent-card.json`;
    },
    get port() {
      return port;
    },
    received,
    get failWith() {
      return failWith;
    },
    set failWith(mode) {
      failWith = mode;
    },
    get holdWhen() {
      return holdWhen;
    },
    set holdWhen(pattern) {
      holdWhen = pattern;
    },
    get cutWhen() {
      return cutWhen;
    },
    set cutWhen(pattern) {
      cutWhen = pattern;
    },
    streamCut: () => new Promise((resolve) => cutWaiters.push(resolve)),
    nextMessage: () => new Promise((resolve) => waiters.push(resolve)),
    stop,
    listen,
  };
}
