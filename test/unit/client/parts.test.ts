// The typed client's parts on their own, without a socket: the resume cursor, what an incoming frame
// does (answers, cursor, listeners, chat), what a send checks before it queues, and how listener
// failures and directives are handled.
import { describe, expect, it } from 'vitest';
import { ChatDispatch } from '../../../src/client/chatDispatch.js';
import { ClientStoppedError, FrameRefusedError } from '../../../src/client/clientErrors.js';
import type { CredentialInfo } from '../../../src/client/credential.js';
import { ResumeCursor } from '../../../src/client/cursor.js';
import { Inbound } from '../../../src/client/inbound.js';
import { IncomingStreams } from '../../../src/client/incomingStreams.js';
import { Listeners } from '../../../src/client/listeners.js';
import { Outbound } from '../../../src/client/outbound.js';
import { Outbox, type Receipt } from '../../../src/client/outbox.js';
import type { ChatFrameIn } from '../../../src/protocol/serverFrames.js';

const at = '2026-11-21T10:00:00.000Z';
const chat = (fields: Partial<ChatFrameIn> = {}): ChatFrameIn => ({
  type: 'CHAT',
  sender_id: 2,
  sender_name: 'bob',
  sender_role: 'MEMBER',
  payload: 'hi',
  timestamp: at,
  ...fields,
});

describe('resume cursor', () => {
  it('moves forward only, and tells a frame already delivered by its id and type', () => {
    const cursor = new ResumeCursor(undefined);
    expect(cursor.seen(5, 'CHAT')).toBe(false);
    cursor.advance(5, 'CHAT');
    cursor.advance(3, 'CHAT');
    expect(cursor.lastId).toBe(5);
    expect(cursor.seen(4, 'SYSTEM_LOG')).toBe(true);
    expect(cursor.seen(5, 'CHAT')).toBe(true);
    // The monitor copy of a CHAT carries the CHAT's id.
    expect(cursor.seen(5, 'BUTLER_AGENT_MESSAGE')).toBe(false);
  });

  it('takes an ACK’s id as the cursor only on a connection that does not replay', () => {
    const fresh = new ResumeCursor(undefined);
    expect(fresh.connecting()).toBeUndefined();
    fresh.acked(9);
    expect(fresh.lastId).toBe(9);
    const resumed = new ResumeCursor(4);
    expect(resumed.connecting()).toBe(4);
    resumed.acked(9);
    expect(resumed.lastId).toBe(4);
  });
});

function inbound(who: CredentialInfo = { kind: 'machine' }) {
  const listeners = new Listeners();
  const outbox = new Outbox(10);
  const cursor = new ResumeCursor(undefined);
  const chats: string[] = [];
  const chatDispatch = new ChatDispatch({ listeners, self: () => who.userId, reply: () => Promise.resolve({ local_id: 'r' }) });
  chatDispatch.onChat((frame) => void chats.push(frame.payload));
  const events: string[] = [];
  const warnings: string[] = [];
  listeners.on('frame', (frame) => void events.push(frame.type));
  listeners.on('warning', (text) => void warnings.push(text));
  const reader = new Inbound({ outbox, cursor, listeners, chat: chatDispatch, streams: new IncomingStreams(listeners), identity: () => who });
  const receive = (value: unknown) => reader.receive(typeof value === 'string' ? value : JSON.stringify(value));
  return { outbox, cursor, chats, events, warnings, receive };
}

describe('incoming frames', () => {
  it('settles what waits in the outbox: an ACK confirms, an ERROR naming the local_id refuses', async () => {
    const { outbox, cursor, events, receive } = inbound();
    const acked = outbox.add('a', '{}', true);
    const refused = outbox.add('b', '{}', true);
    receive({ type: 'ACK', local_id: 'a', id: 7, timestamp: at });
    receive({ type: 'ERROR', payload: { code: 'forbidden', message: 'not yours' }, local_id: 'b' });
    await expect(acked).resolves.toEqual({ local_id: 'a', id: 7, timestamp: at });
    await expect(refused).rejects.toEqual(new FrameRefusedError('forbidden', 'not yours'));
    expect(cursor.lastId).toBe(7);
    expect(events).toEqual(['ACK', 'ERROR']);
  });

  it('keeps a frame the hub could not store queued, and warns', () => {
    const { outbox, warnings, receive } = inbound();
    void outbox.add('a', '{}', true);
    receive({ type: 'ERROR', payload: { code: 'unavailable', message: 'store is down' }, local_id: 'a' });
    expect(outbox.has('a')).toBe(true);
    expect(warnings).toEqual(['the hub refused a frame (a): unavailable: store is down']);
  });

  it('drops a frame already delivered and hands new CHATs to the chat handlers', () => {
    const { chats, events, cursor, receive } = inbound();
    receive(chat({ id: 3, payload: 'one' }));
    receive(chat({ id: 3, payload: 'one again' }));
    receive(chat({ id: 4, payload: 'two' }));
    expect(chats).toEqual(['one', 'two']);
    expect(events).toEqual(['CHAT', 'CHAT']);
    expect(cursor.lastId).toBe(4);
  });

  it('confirms a human’s own echo, which its chat handlers do not get', async () => {
    const { outbox, chats, receive } = inbound({ kind: 'human', userId: 2 });
    const sent = outbox.add('l-1', '{}', true);
    receive(chat({ id: 8, local_id: 'l-1' }));
    await expect(sent).resolves.toEqual({ local_id: 'l-1', id: 8, timestamp: at });
    expect(chats).toEqual([]);
  });

  it('warns about what it cannot read, moving the cursor past a stored frame of an unknown type', () => {
    const { cursor, events, warnings, receive } = inbound();
    receive('not json');
    receive({ type: 'HOLOGRAM', id: 12 });
    receive({ type: 'CHAT', id: 13, payload: 5 });
    expect(events).toEqual([]);
    expect(cursor.lastId).toBe(13);
    expect(warnings[0]).toBe('ignored a frame that is not JSON: not json');
    expect(warnings[1]).toBe('ignored a frame of unknown type "HOLOGRAM"');
    expect(warnings[2]).toMatch(/^ignored a CHAT frame that does not match the protocol: /);
  });
});

function outbound(options: { closed?: boolean; who?: CredentialInfo; maxFrameBytes?: number } = {}) {
  const outbox = new Outbox(10);
  let flushes = 0;
  const sender = new Outbound({
    outbox,
    maxFrameBytes: options.maxFrameBytes ?? 1 << 20,
    identity: () => options.who ?? { kind: 'machine' },
    closed: () => options.closed ?? false,
    flush: () => void flushes++,
  });
  return { outbox, sender, flushes: () => flushes };
}

describe('outgoing frames', () => {
  it('gives each frame a fresh local_id unless it brings one, queues it and writes what is due', () => {
    const { outbox, sender, flushes } = outbound();
    void sender.send({ type: 'CHAT', payload: 'hi' });
    void sender.send({ type: 'CHAT', payload: 'again', local_id: 'mine' });
    const written: string[] = [];
    outbox.flush((text) => written.push(text) > 0, 0);
    const ids = written.map((text) => (JSON.parse(text) as { local_id: string }).local_id);
    expect(ids[0]).toMatch(/^[\w-]+-1$/);
    expect(ids[1]).toBe('mine');
    expect(flushes()).toBe(2);
  });

  it('refuses what the hub would refuse, before queueing it', async () => {
    const { outbox, sender } = outbound({ maxFrameBytes: 64 });
    await expect(sender.send({ type: 'SYSTEM_LOG', payload: { level: 'LOUD', content: 'x' } } as never)).rejects.toMatchObject({
      name: 'FrameRefusedError',
      code: 'invalid_payload',
    });
    await expect(sender.send({ type: 'CHAT', payload: 'x'.repeat(100) })).rejects.toMatchObject({ code: 'frame_too_large' });
    expect(outbox.size).toBe(0);
  });

  it('takes nothing once the client closes', async () => {
    const { sender } = outbound({ closed: true });
    await expect(sender.send({ type: 'CHAT', payload: 'late' })).rejects.toEqual(new ClientStoppedError('the client is closed'));
  });

  it('waits for an answer only where the hub gives one: a human’s targeted report gets no echo', async () => {
    const { outbox, sender } = outbound({ who: { kind: 'human', userId: 1 } });
    const report = sender.send({ type: 'WEATHER_UPDATE', payload: 'sunny', target_id: 9 });
    void sender.send({ type: 'CHAT', payload: 'hi', target_id: 9 });
    outbox.flush(() => true, 0);
    await expect(report).resolves.toMatchObject({ local_id: expect.any(String) as string });
    // The CHAT waits for its echo.
    expect(outbox.size).toBe(1);
  });
});

describe('listeners and directives', () => {
  it('turns a failing listener into a warning, and a failing warning listener into nothing', async () => {
    const listeners = new Listeners();
    const warnings: string[] = [];
    listeners.on('warning', (text) => void warnings.push(text));
    listeners.on('warning', () => {
      throw new Error('warning handler broke');
    });
    listeners.on('status', () => Promise.reject(new Error('async boom')));
    listeners.on('frame', () => {
      throw new Error('boom');
    });
    listeners.emit('frame', chat());
    listeners.emit('status', { state: 'open', message: 'connected', attempt: 0 });
    await expect.poll(() => warnings).toEqual(['a frame handler failed: boom', 'a status handler failed: async boom']);
  });

  it('answers a directive with the handler’s text, or with its failure', async () => {
    const listeners = new Listeners();
    const answers: Array<[ChatFrameIn, string]> = [];
    let answered!: () => void;
    const twoAnswers = new Promise<void>((resolve) => (answered = resolve));
    const dispatch = new ChatDispatch({
      listeners,
      self: () => undefined,
      reply: (to, text): Promise<Receipt> => {
        answers.push([to, text]);
        if (answers.length === 2) answered();
        return Promise.resolve({ local_id: 'r' });
      },
    });
    const chats: string[] = [];
    dispatch.onChat((frame) => void chats.push(frame.payload));
    dispatch.onDirective(({ command }) => {
      if (command === 'fail') throw new Error('disk full');
      return `done: ${command}`;
    });
    const directive = (command: string) => chat({ sender_role: 'BUTLER', payload: `[DIRECTIVE] ${command}`, stream_id: `s-${command}` });
    dispatch.dispatch(directive('uptime'));
    dispatch.dispatch(directive('fail'));
    dispatch.dispatch(chat({ payload: 'plain' }));
    await twoAnswers;
    expect(Object.fromEntries(answers.map(([to, text]) => [to.stream_id, text]))).toEqual({
      's-uptime': 'done: uptime',
      's-fail': 'directive failed: disk full',
    });
    expect(chats).toEqual(['plain']);
  });
});
