// A remote agent's proxy carrying the back-log when it binds: live chats that arrive while the
// back-log is read are held back, so each chat reaches the agent once and in order, and the mark
// stored moves to the last one; a chat whose answer is already stored is not carried again. The agent's
// client and the store are in-memory fakes here; the whole path against an SDK agent is in
// test/integration/a2aRemote.test.ts (and across a crash, a2aRemoteCrash.test.ts).
import { AgentCard, type Message } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import pino from 'pino';
import { expect, it } from 'vitest';
import { createProxy } from '../../../../src/a2a/remote/proxy.js';
import type { Endpoint, MessageInput } from '../../../../src/delivery/types.js';
import type { MessageFrame } from '../../../../src/protocol/frames.js';

const agent = { id: 50, username: 'remote', role: 'AGENT' as const };
const chat = (id: number, text: string): MessageFrame => ({
  type: 'CHAT',
  id,
  sender_id: 7,
  sender_name: 'alice',
  sender_role: 'MEMBER',
  target_id: agent.id,
  conversation_id: 3,
  payload: text,
  timestamp: '2026-01-01T00:00:00.000Z',
});

/** A proxy over fakes: the agent answers "echo: <text>"; `done` resolves once the mark stored reaches `lastId`. */
function startProxy(options: { backlog: (afterId: number) => Promise<MessageFrame[]>; answered?: ReadonlySet<number>; lastId: number }) {
  const asked: Array<{ text: string; messageId: string }> = [];
  const answered: MessageInput[] = [];
  const marks: number[] = [];
  let allAnswered!: () => void;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  const bound: { endpoint?: Endpoint } = {};
  const card = AgentCard.fromJSON({ name: 'remote', supportedInterfaces: [{ url: 'http://a/a2a', protocolBinding: 'JSONRPC' }] });
  const client = {
    async sendMessage(request: { message: Message }) {
      const text = request.message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      asked.push({ text, messageId: request.message.messageId });
      return { messageId: 'm', role: 2, parts: [{ content: { $case: 'text', value: `echo: ${text}` } }] };
    },
  } as unknown as Client;
  const proxy = createProxy({
    agent,
    key: -1,
    timing: { recheckMs: 60_000, backoffMs: 60_000, maxBackoffMs: 60_000 },
    router: { send: (e) => void (e.type === 'BIND' ? (bound.endpoint = e.endpoint) : undefined) },
    check: async () => ({ card, json: '{}', streaming: false }),
    clientFor: async () => client,
    cardChanged: () => undefined,
    post: async (_sender, input) => {
      answered.push(input);
      return { id: answered.length } as never;
    },
    carried: 1,
    backlog: options.backlog,
    answered: async (ids) => new Set(ids.filter((id) => options.answered?.has(id))),
    messageIdOf: (id) => `m-${id}`,
    setCarried: async (id) => {
      marks.push(id);
      if (id === options.lastId) allAnswered();
    },
    secrets: [],
    meter: { forwarded: () => undefined },
    closed: () => undefined,
    logger: pino({ level: 'silent' }),
  });
  proxy.start();
  return { proxy, asked, answered, marks, done, bound };
}

it('holds live chats back while the back-log is read, and carries each chat once, in order', async () => {
  let release!: (frames: MessageFrame[]) => void;
  let backlogAsked!: (afterId: number) => void;
  const backlogCalled = new Promise<number>((resolve) => (backlogAsked = resolve));
  const { proxy, asked, answered, marks, done, bound } = startProxy({
    backlog: (afterId) => {
      backlogAsked(afterId);
      return new Promise((resolve) => (release = resolve));
    },
    lastId: 5,
  });
  expect(await backlogCalled).toBe(1);
  const endpoint = bound.endpoint!;
  // While the back-log is read: a chat it holds too (3), and one stored after it was read (4).
  for (const frame of [chat(3, 'three'), chat(4, 'four')]) endpoint.deliver(JSON.stringify(frame), frame.id, frame);
  expect(asked).toEqual([]);
  release([chat(2, 'two'), chat(3, 'three')]);
  // A late live copy of one already carried is dropped too.
  endpoint.deliver(JSON.stringify(chat(2, 'two')), 2, chat(2, 'two'));
  endpoint.deliver(JSON.stringify(chat(5, 'five')), 5, chat(5, 'five'));
  await done;
  proxy.stop();
  expect(asked.map((a) => a.text)).toEqual(['two', 'three', 'four', 'five']);
  expect(answered.map((a) => a.payload)).toEqual(['echo: two', 'echo: three', 'echo: four', 'echo: five']);
  expect(marks).toEqual([...marks].sort((a, b) => a - b));
});

it('sends each chat under the messageId of its stored id, and stores the answer under a local_id of the chat', async () => {
  const { proxy, asked, answered, done } = startProxy({ backlog: async () => [chat(2, 'two'), chat(3, 'three')], lastId: 3 });
  await done;
  proxy.stop();
  expect(asked).toEqual([
    { text: 'two', messageId: 'm-2' },
    { text: 'three', messageId: 'm-3' },
  ]);
  expect(answered.map((a) => a.local_id)).toEqual(['a2a-answer-2', 'a2a-answer-3']);
});

it('does not carry a back-log chat whose answer is already stored (the hub died before the mark moved), and moves the mark past it', async () => {
  const { proxy, asked, answered, marks, done } = startProxy({
    backlog: async () => [chat(2, 'two'), chat(3, 'three'), chat(4, 'four')],
    answered: new Set([2, 3]),
    lastId: 4,
  });
  await done;
  proxy.stop();
  expect(asked.map((a) => a.text)).toEqual(['four']);
  expect(answered.map((a) => a.payload)).toEqual(['echo: four']);
  expect(marks.at(-1)).toBe(4);
});
