// A remote agent's proxy carrying the back-log when it binds: live chats that arrive while the
// back-log is read are held back, so each chat reaches the agent once and in order, and the mark
// stored moves to the last one. The agent's client and the store are in-memory fakes here; the whole
// path against an SDK agent is in test/integration/a2aRemote.test.ts.
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

it('holds live chats back while the back-log is read, and carries each chat once, in order', async () => {
  const asked: string[] = [];
  const answered: MessageInput[] = [];
  const marks: number[] = [];
  let release!: (frames: MessageFrame[]) => void;
  let backlogAsked!: (afterId: number) => void;
  const backlogCalled = new Promise<number>((resolve) => (backlogAsked = resolve));
  let allAnswered!: () => void;
  const done = new Promise<void>((resolve) => (allAnswered = resolve));
  let endpoint: Endpoint | undefined;
  const card = AgentCard.fromJSON({ name: 'remote', supportedInterfaces: [{ url: 'http://a/a2a', protocolBinding: 'JSONRPC' }] });
  const client = {
    async sendMessage(request: { message: Message }) {
      const text = request.message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      asked.push(text);
      return { messageId: 'm', role: 2, parts: [{ content: { $case: 'text', value: `echo: ${text}` } }] };
    },
  } as unknown as Client;
  const proxy = createProxy({
    agent,
    key: -1,
    timing: { recheckMs: 60_000, backoffMs: 60_000, maxBackoffMs: 60_000 },
    router: { send: (e) => void (e.type === 'BIND' ? (endpoint = e.endpoint) : undefined) },
    check: async () => ({ card, json: '{}', streaming: false }),
    clientFor: async () => client,
    cardChanged: () => undefined,
    post: async (_sender, input) => {
      answered.push(input);
      return { id: answered.length } as never;
    },
    carried: 1,
    backlog: (afterId) => {
      backlogAsked(afterId);
      return new Promise((resolve) => (release = resolve));
    },
    answered: async () => new Set(),
    messageIdOf: (id) => `m-${id}`,
    setCarried: async (id) => {
      marks.push(id);
      if (id === 5) allAnswered();
    },
    secrets: [],
    meter: { forwarded: () => undefined },
    closed: () => undefined,
    logger: pino({ level: 'silent' }),
  });
  proxy.start();
  expect(await backlogCalled).toBe(1);
  // While the back-log is read: a chat it holds too (3), and one stored after it was read (4).
  for (const frame of [chat(3, 'three'), chat(4, 'four')]) endpoint!.deliver(JSON.stringify(frame), frame.id, frame);
  expect(asked).toEqual([]);
  release([chat(2, 'two'), chat(3, 'three')]);
  // A late live copy of one already carried is dropped too.
  endpoint!.deliver(JSON.stringify(chat(2, 'two')), 2, chat(2, 'two'));
  endpoint!.deliver(JSON.stringify(chat(5, 'five')), 5, chat(5, 'five'));
  await done;
  proxy.stop();
  expect(asked).toEqual(['two', 'three', 'four', 'five']);
  expect(answered.map((a) => a.payload)).toEqual(['echo: two', 'echo: three', 'echo: four', 'echo: five']);
  expect(marks).toEqual([...marks].sort((a, b) => a - b));
});
