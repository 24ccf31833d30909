// Butler's Chat Completions client against a loopback server that writes its answers by hand: the
// request as OpenAI-compatible endpoints expect it, streams cut anywhere, errors in every form,
// aborts, and connections kept alive between calls.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiModel, ModelError, type LanguageModel, type ModelStep } from '../../../src/butler/model.js';

interface Seen {
  method?: string;
  url?: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  raw: string;
}

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A server answering each request with `answer`; it records requests and counts connections. */
async function serve(answer: (res: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const request = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(raw) as Record<string, unknown>, raw };
      seen.push(request);
      answer(res, request);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, connections: () => connections };
}

const chunk = (delta: object) => `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}`;
const never = new AbortController().signal;

function run(
  baseUrl: string,
  options: { signal?: AbortSignal; deltas?: string[]; tools?: boolean; idleTimeoutMs?: number; model?: LanguageModel } = {},
): Promise<ModelStep> {
  const model = options.model ?? createOpenAiModel({ baseUrl, name: 'test-model', apiToken: 'sk-test', idleTimeoutMs: options.idleTimeoutMs ?? 5000 });
  const tools = options.tools ? [{ type: 'function' as const, function: { name: 'list_agents', parameters: { type: 'object' } } }] : [];
  return model.step([{ role: 'user', content: 'hi' }], tools, { signal: options.signal ?? never, onDelta: (d) => options.deltas?.push(d) });
}

describe("Butler's model client", () => {
  it('posts to <base URL>/chat/completions as OpenAI-compatible endpoints expect', async () => {
    const s = await serve((res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: [DONE]\n\n'));
    await run(`${s.url}/v1/?api-version=1`, { tools: true });
    const model = createOpenAiModel({ baseUrl: `${s.url}/v1`, name: 'test-model', apiToken: 'sk-test', idleTimeoutMs: 5000 });
    await run('', { model });
    await run('', { model });
    expect(s.seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions?api-version=1' });
    expect(s.seen[0]!.headers).toMatchObject({ authorization: 'Bearer sk-test', 'content-type': 'application/json', accept: 'text/event-stream' });
    expect(s.seen[0]!.body).toEqual({
      model: 'test-model',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'list_agents', parameters: { type: 'object' } } }],
    });
    // Written as JSON.stringify writes the same object; content-length counts bytes, not characters.
    const unicode = [{ role: 'user' as const, content: 'héllo ⟨1⟩' }];
    await model.step(unicode, [], { signal: never, onDelta: () => undefined });
    expect(s.seen[3]!.raw).toBe(JSON.stringify({ model: 'test-model', messages: unicode, stream: true }));
    expect(Number(s.seen[3]!.headers['content-length'])).toBe(Buffer.byteLength(s.seen[3]!.raw));
    expect(s.seen[0]!.raw).toBe(JSON.stringify(s.seen[0]!.body));
    expect(s.seen[1]!.url).toBe('/v1/chat/completions');
    expect(Object.keys(s.seen[1]!.body)).not.toContain('tools');
    // A client's calls reuse kept-alive connections (the first call's client had its own; undici's
    // pool may open a second when a call follows the last one's end within the same turn).
    expect(s.seen).toHaveLength(4);
    expect(s.connections()).toBeLessThanOrEqual(3);
  });

  it('sends again, once, when a kept-alive connection was closed by the endpoint as it was reused', async () => {
    let request = 0;
    const s = await serve((res) => {
      request++;
      // The second request arrives on the first one's connection: the endpoint drops it unanswered.
      if (request === 2) res.socket?.destroy();
      else res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`${chunk({ content: `answer ${request}` })}\n\ndata: [DONE]\n\n`);
    });
    const model = createOpenAiModel({ baseUrl: s.url, name: 'test-model', idleTimeoutMs: 5000 });
    expect((await run('', { model })).text).toBe('answer 1');
    expect((await run('', { model })).text).toBe('answer 3');
    expect(s.connections()).toBe(2);
  });

  it('reads a stream cut anywhere: text deltas in order, tool calls put together, nothing after [DONE]', async () => {
    const events = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hé ' }),
      chunk({ content: 'là' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'ask_', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'agent', arguments: '{"agent_id":' } }] }),
      chunk({ tool_calls: [{ index: 1, type: 'function', function: { name: 'list_agents', arguments: '{}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '3}' } }] }),
      ': a comment',
      'data: [DONE]',
      chunk({ content: 'after the end' }),
    ];
    const bytes = Buffer.from(events.join('\r\n\r\n') + '\r\n\r\n', 'utf8');
    const s = await serve((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Seven-byte pieces: lines, CRLFs and the two bytes of "é" all split across writes.
      for (let i = 0; i < bytes.length; i += 7) res.write(bytes.subarray(i, i + 7));
      res.end();
    });
    const deltas: string[] = [];
    const step = await run(s.url, { deltas });
    expect(deltas).toEqual(['Hé ', 'là']);
    expect(step).toEqual({
      text: 'Hé là',
      toolCalls: [
        { id: 'call_a', name: 'ask_agent', arguments: '{"agent_id":3}' },
        { id: 'call_1', name: 'list_agents', arguments: '{}' },
      ],
    });
  });

  it('turns every failure into a ModelError fit for the asker', async () => {
    const answers: Array<(res: ServerResponse) => void> = [
      (res) => res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: ' slow down ' } })),
      (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>bad gateway</html>'),
      (res) => res.writeHead(200).end(`${chunk({ content: 'a' })}\n\ndata: ${JSON.stringify({ error: { message: 'overloaded' } })}\n\n`),
      (res) => res.writeHead(200).end(`event: error\ndata: {"message":"bad things"}\n\n`),
      (res) => res.writeHead(200).end('data: {not json\n\n'),
      (res) => {
        // The connection ends (after what was written) without the response's end. Destroyed once the chunk
        // is written: on Node 24, ending the socket under a response still open did not close the connection.
        res.writeHead(200).write(`${chunk({ content: 'a' })}\n\n`, () => res.socket?.destroy());
      },
    ];
    const s = await serve((res) => answers.shift()!(res));
    const failure = (p: Promise<unknown>) =>
      p.then(
        () => 'resolved',
        (err: unknown) => (err instanceof ModelError ? err.message : `not a ModelError: ${String(err)}`),
      );
    expect(await failure(run(s.url))).toBe('the language model answered HTTP 429: slow down');
    expect(await failure(run(s.url))).toBe('the language model answered HTTP 502');
    expect(await failure(run(s.url))).toBe('the language model reported an error: overloaded');
    expect(await failure(run(s.url))).toBe('the language model reported an error: bad things');
    expect(await failure(run(s.url))).toBe('the language model sent an event that is not JSON');
    expect(await failure(run(s.url))).toBe("the language model's answer broke off");
    const { url } = s;
    await new Promise((resolve) => {
      server!.closeAllConnections();
      server!.close(resolve);
      server = undefined;
    });
    expect(await failure(run(url))).toBe('the language model could not be reached');
  });

  it('gives up a stream that goes quiet, and stops at once when aborted, with the abort reason', async () => {
    let closed!: Promise<void>;
    const s = await serve((res) => {
      closed = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200).write(`${chunk({ content: 'thinking' })}\n\n`);
    });
    const quiet = await run(s.url, { idleTimeoutMs: 100 }).catch((err: unknown) => err);
    expect(quiet).toBeInstanceOf(ModelError);
    expect((quiet as Error).message).toBe('the language model sent nothing for 0.1 s');
    await closed;

    const controller = new AbortController();
    const deltas: string[] = [];
    const running = run(s.url, {
      signal: controller.signal,
      deltas: { push: (d: string) => (controller.abort(new Error('cancelled')), deltas.push(d)) } as unknown as string[],
    });
    await expect(running).rejects.toThrow('cancelled');
    expect(deltas).toEqual(['thinking']);
    // The connection to the endpoint is closed, not left streaming.
    await closed;
  });
});
