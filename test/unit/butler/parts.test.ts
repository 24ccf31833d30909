// Butler's pure parts: the safe-mode rules, the reply stream's frame sequence and coalescing, the
// tool definitions the model sees, and the relay's answer matching — each with fakes for its ports.
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { planSafeReply } from '../../../src/butler/safeMode.js';
import { openReplyStream } from '../../../src/butler/replyStream.js';
import { createAgentRelay, RelayError } from '../../../src/butler/relay.js';
import { toolDefinitions } from '../../../src/butler/tools.js';
import { turnSignal } from '../../../src/butler/signals.js';
import type { Pipeline } from '../../../src/delivery/pipeline.js';
import type { MessageInput, Principal } from '../../../src/delivery/types.js';

const butler: Principal = { id: 2, username: 'Butler', role: 'BUTLER' };
const mia: Principal = { id: 3, username: 'mia', role: 'MEMBER' };
const worker: Principal = { id: 10, username: 'worker', role: 'AGENT' };

/** A pipeline that records what is submitted and posts that succeed at once. */
function fakePipeline() {
  const sent: Array<{ kind: 'submit' | 'post'; input: MessageInput }> = [];
  let nextId = 100;
  const pipeline = {
    submit: (_sender: Principal, input: MessageInput) => void sent.push({ kind: 'submit', input }),
    post: async (_sender: Principal, input: MessageInput) => {
      sent.push({ kind: 'post', input });
      return { frame: {}, text: '', stored: { id: nextId++, duplicate: false } };
    },
  } as unknown as Pipeline;
  return { pipeline, sent };
}

describe('safe-mode rules', () => {
  it.each([
    ['@weather-bot what is the forecast?', { kind: 'relay', agentName: 'weather-bot', text: 'what is the forecast?' }],
    ['  @ops   restart\nthe cache  ', { kind: 'relay', agentName: 'ops', text: 'restart\nthe cache' }],
    ['@ops', { kind: 'relay_usage', agentName: 'ops' }],
    ['agents', { kind: 'list_agents' }],
    ['/agents', { kind: 'list_agents' }],
    ['List agents', { kind: 'list_agents' }],
    ["who's online?", { kind: 'list_agents' }],
    ['status', { kind: 'list_agents' }],
    ['hello Butler', { kind: 'help', greeting: true }],
    ['what can you do', { kind: 'help', greeting: false }],
    ['email me @ noon', { kind: 'help', greeting: false }],
  ])('%j → %j', (text, intent) => {
    expect(planSafeReply(text)).toEqual(intent);
  });
});

describe('reply stream', () => {
  const deps = (pipeline: Pipeline, flushMs = 1000, maxChars = 1000) => ({ pipeline, butler, logger: pino({ level: 'silent' }), flushMs, maxChars });

  it('sends the first delta at once, coalesces the rest, then the stored CHAT and the end marker with one stream_id', async () => {
    const { pipeline, sent } = fakePipeline();
    const stream = openReplyStream(deps(pipeline), { to: mia, conversationId: 7 });
    stream.write('Hel');
    stream.write('lo, ');
    stream.write('Mia');
    expect(sent.map((s) => s.input.payload)).toEqual(['Hel']);
    await stream.finish();
    expect(sent.map((s) => [s.kind, s.input.type, s.input.payload])).toEqual([
      ['submit', 'CHAT_STREAM', 'Hel'],
      ['submit', 'CHAT_STREAM', 'lo, Mia'],
      ['post', 'CHAT', 'Hello, Mia'],
      ['submit', 'CHAT_STREAM_END', ''],
    ]);
    for (const { input } of sent) expect(input).toMatchObject({ target_id: 3, conversation_id: 7, stream_id: stream.streamId });
    expect(stream.streamId).toMatch(/^butler-[0-9a-f-]{36}$/);
  });

  it('still ends the stream when the final CHAT cannot be stored, and says so in the log', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    const sent: string[] = [];
    const pipeline = {
      submit: (_sender: Principal, input: MessageInput) => void sent.push(input.type),
      post: async (_sender: Principal, input: MessageInput) => {
        sent.push(input.type);
        throw new Error('store unavailable');
      },
    } as unknown as Pipeline;
    const stream = openReplyStream({ ...deps(pipeline), logger }, { to: mia, conversationId: 7 });
    await stream.finish('note');
    expect(sent).toEqual(['CHAT', 'CHAT_STREAM_END']);
    expect(warnings).toEqual(['Butler could not store its answer']);
  });

  it('cuts a reply at its cap, says so in the final CHAT only, and refuses more text', async () => {
    const { pipeline, sent } = fakePipeline();
    const stream = openReplyStream(deps(pipeline, 0, 5), { to: mia, conversationId: null });
    expect(stream.write('abc')).toBe(true);
    expect(stream.write('defgh')).toBe(false);
    expect(stream.write('more')).toBe(false);
    await stream.finish('note');
    expect(
      sent
        .filter((s) => s.input.type === 'CHAT_STREAM')
        .map((s) => s.input.payload)
        .join(''),
    ).toBe('abcde');
    expect(sent.find((s) => s.input.type === 'CHAT')!.input).toMatchObject({
      payload: 'abcde\n\n[The reply was cut off at 5 characters.]\n\nnote',
      conversation_id: undefined,
    });
  });

  it('ends an empty answer with its note alone, and only once', async () => {
    const { pipeline, sent } = fakePipeline();
    const stream = openReplyStream(deps(pipeline), { to: mia, conversationId: 7 });
    await stream.finish('Stopped.');
    await stream.finish('again');
    expect(sent.map((s) => [s.input.type, s.input.payload])).toEqual([
      ['CHAT', 'Stopped.'],
      ['CHAT_STREAM_END', ''],
    ]);
  });
});

describe('turn signal', () => {
  it('aborts with the first reason: the outer signal, the deadline (a TimeoutError) or a stop from inside', () => {
    vi.useFakeTimers();
    try {
      const outer = new AbortController();
      const byOuter = turnSignal(outer.signal, 1000);
      outer.abort('hub stopping');
      vi.advanceTimersByTime(2000);
      expect([byOuter.signal.reason, byOuter.timedOut]).toEqual(['hub stopping', false]);

      const late = turnSignal(new AbortController().signal, 1000);
      vi.advanceTimersByTime(1000);
      expect(late.timedOut).toBe(true);
      expect((late.signal.reason as DOMException).name).toBe('TimeoutError');
      late.stop('too late');
      expect((late.signal.reason as DOMException).name).toBe('TimeoutError');

      const stopped = turnSignal(new AbortController().signal, 1000);
      stopped.stop('capped');
      vi.advanceTimersByTime(2000);
      expect([stopped.signal.reason, stopped.timedOut]).toEqual(['capped', false]);

      // Disposed once the answer is over: neither the outer signal nor the deadline reaches it.
      const other = new AbortController();
      const over = turnSignal(other.signal, 1000);
      over.dispose();
      other.abort('later');
      vi.advanceTimersByTime(2000);
      expect(over.signal.aborted).toBe(false);

      const already = turnSignal(AbortSignal.abort('before'), 1000);
      expect(already.signal.reason).toBe('before');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('tool definitions', () => {
  it('offers exactly list_agents, command_agent and ask_agent with JSON-schema parameters', () => {
    const tools = toolDefinitions();
    expect(tools.map((t) => (t as { function: { name: string } }).function.name)).toEqual(['list_agents', 'command_agent', 'ask_agent']);
    const command = tools[1] as unknown as { function: { parameters: { required: string[]; properties: Record<string, unknown> } } };
    expect(command.function.parameters.required).toEqual(['target_agent_id', 'command']);
    expect(Object.keys(command.function.parameters.properties)).toEqual(['target_agent_id', 'command', 'reasoning']);
  });
});

describe('agent relay', () => {
  const answerFrame = (payload: string, stream_id?: string, sender_id = worker.id) => ({
    type: 'CHAT',
    sender_id,
    sender_name: 'x',
    sender_role: 'AGENT',
    target_id: 2,
    payload,
    timestamp: '',
    ...(stream_id ? { stream_id } : {}),
  });

  it('matches an answer by stream_id, else the oldest open request to that agent; another agent cannot answer', async () => {
    const { pipeline, sent } = fakePipeline();
    const relay = createAgentRelay({ pipeline, butler, timeoutMs: 5000 });
    const first = relay.ask(worker, 'one');
    const second = relay.ask(worker, 'two');
    await Promise.resolve();
    await Promise.resolve();
    const [a, b] = sent.map((s) => s.input.stream_id!);
    expect(relay.claim(answerFrame('for two', b))).toBe(true);
    expect(relay.claim(answerFrame('impostor', a, 99))).toBe(false);
    expect(relay.claim(answerFrame('no stream id'))).toBe(true);
    await expect(second).resolves.toBe('for two');
    await expect(first).resolves.toBe('no stream id');
    expect(relay.open).toBe(0);
  });

  it('rejects with a readable message on timeout, and on cancelAll', async () => {
    const { pipeline } = fakePipeline();
    const relay = createAgentRelay({ pipeline, butler, timeoutMs: 1000 });
    await expect(relay.ask(worker, 'anyone?')).rejects.toThrow(new RelayError('worker did not answer within 1 s'));
    const pending = relay.ask(worker, 'later');
    relay.cancelAll('the hub is shutting down');
    await expect(pending).rejects.toThrow('the hub is shutting down');
  });
});
