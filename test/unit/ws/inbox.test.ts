// The WebSocket inbox: decodeFrame's answer for every kind of bad frame (wire.md §5 ERROR codes) and
// the typed frame for every client type; then the token bucket that rate-limits a socket.
import { describe, expect, it } from 'vitest';
import { LogLevels } from '../../../src/protocol/messages.js';
import { decodeFrame, type Decoded } from '../../../src/ws/inbox.js';
import { TokenBucket } from '../../../src/ws/tokenBucket.js';

const MAX = 4096;

function bytes(data: Uint8Array): ArrayBuffer {
  return data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
}

const text = (s: string) => bytes(new TextEncoder().encode(s));

function decode(value: unknown, maxBytes = MAX): Decoded {
  return decodeFrame(text(typeof value === 'string' ? value : JSON.stringify(value)), false, maxBytes);
}

function frameOf(value: unknown) {
  const result = decode(value);
  if (!result.ok) expect.fail(`refused ${JSON.stringify(value)}: ${result.code} ${result.message}`);
  return result.frame;
}

function errorOf(value: unknown, maxBytes = MAX) {
  const result = decode(value, maxBytes);
  if (result.ok) expect.fail(`accepted ${JSON.stringify(value)}`);
  return result;
}

describe('decodeFrame: refusals', () => {
  it('refuses a frame above the size limit with frame_too_large, and accepts one at the limit', () => {
    const frame = JSON.stringify({ type: 'CHAT', payload: 'x'.repeat(100) });
    const size = new TextEncoder().encode(frame).byteLength;
    const tooLarge = errorOf(frame, size - 1);
    expect(tooLarge.code).toBe('frame_too_large');
    expect(tooLarge.message).toContain(String(size - 1));
    expect(decode(frame, size).ok).toBe(true);
  });

  it('checks the size before anything else (even for binary or broken frames)', () => {
    expect(decodeFrame(new ArrayBuffer(10), true, 5)).toMatchObject({ ok: false, code: 'frame_too_large' });
  });

  it('refuses binary frames with invalid_frame, even when they hold JSON', () => {
    const result = decodeFrame(text(JSON.stringify({ type: 'CHAT', payload: 'hi' })), true, MAX);
    expect(result).toMatchObject({ ok: false, code: 'invalid_frame' });
  });

  it.each([
    ['truncated JSON', '{"type":"CHAT","payload":'],
    ['not JSON at all', 'hello'],
    ['empty frame', ''],
  ])('refuses %s with invalid_json', (_label, raw) => {
    expect(errorOf(raw).code).toBe('invalid_json');
  });

  it('refuses invalid UTF-8 bytes with invalid_json (no replacement characters smuggled in)', () => {
    // {"type":"CHAT","payload":"<0xff 0xfe>"}
    const prefix = new TextEncoder().encode('{"type":"CHAT","payload":"');
    const suffix = new TextEncoder().encode('"}');
    const raw = new Uint8Array([...prefix, 0xff, 0xfe, ...suffix]);
    expect(decodeFrame(bytes(raw), false, MAX)).toMatchObject({ ok: false, code: 'invalid_json' });
  });

  it.each([
    ['an array', [{ type: 'CHAT', payload: 'x' }]],
    ['a string', '"CHAT"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('refuses %s with invalid_frame', (_label, value) => {
    const result = errorOf(value);
    expect(result.code).toBe('invalid_frame');
    expect(result.message).toBe('frame must be a JSON object');
  });

  it.each([
    ['missing', { payload: 'x', local_id: 'l-1' }],
    ['not a string', { type: 7, payload: 'x', local_id: 'l-1' }],
  ])('refuses a type that is %s with invalid_frame, echoing local_id', (_label, value) => {
    expect(errorOf(value)).toEqual({ ok: false, code: 'invalid_frame', message: 'type is required', localId: 'l-1' });
  });

  it.each(['ERROR', 'ACK', 'PRESENCE', 'BUTLER_AGENT_MESSAGE', 'chat', 'HELLO'])('refuses type %s with unknown_type', (type) => {
    const result = errorOf({ type, payload: 'x', local_id: 'l-2' });
    expect(result.code).toBe('unknown_type');
    expect(result.message).toContain(`"${type}"`);
    expect(result.message).toContain('CHAT, CHAT_STREAM, CHAT_STREAM_END');
    expect(result.localId).toBe('l-2');
  });

  it('cuts a long unknown type in the message', () => {
    const result = errorOf({ type: 'X'.repeat(1000), payload: 'x' });
    expect(result.code).toBe('unknown_type');
    expect(result.message).not.toContain('X'.repeat(65));
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['SYSTEM_LOG with a bad level', { type: 'SYSTEM_LOG', payload: { level: 'DEBUG', content: 'x' } }, `payload.level must be one of ${LogLevels.join(', ')}`],
    ['SYSTEM_LOG without content', { type: 'SYSTEM_LOG', payload: { level: 'INFO' } }, 'payload.content is required'],
    ['SYSTEM_LOG with a string payload', { type: 'SYSTEM_LOG', payload: 'disk full' }, 'payload must be a JSON object'],
    ['CHAT with an object payload', { type: 'CHAT', payload: { text: 'hi' } }, 'payload must be a string'],
    ['CHAT without payload', { type: 'CHAT' }, 'payload is required'],
    ['CHAT_STREAM without stream_id', { type: 'CHAT_STREAM', payload: 'chunk' }, 'stream_id is required'],
    ['CHAT_STREAM_END without stream_id', { type: 'CHAT_STREAM_END' }, 'stream_id is required'],
    ['WEATHER_UPDATE with a number', { type: 'WEATHER_UPDATE', payload: 21 }, 'payload must be a JSON object or a string'],
    ['AUTH_RESPONSE without approved', { type: 'AUTH_RESPONSE', payload: { action_id: 'a-1' } }, 'payload.approved is required'],
    ['a target_id that is not a positive integer', { type: 'CHAT', payload: 'x', target_id: 0 }, 'target_id must be at least 1'],
    ['a local_id that is too long', { type: 'CHAT', payload: 'x', local_id: 'l'.repeat(129) }, 'local_id must be at most 128 characters'],
  ])('refuses %s with invalid_payload and a message naming the field', (_label, value, message) => {
    const result = errorOf(value);
    expect(result.code).toBe('invalid_payload');
    expect(result.message).toBe(message);
  });

  it('echoes local_id on invalid_payload', () => {
    const result = errorOf({ type: 'SYSTEM_LOG', payload: { level: 'LOUD', content: 'x' }, local_id: 'log-9' });
    expect(result).toMatchObject({ code: 'invalid_payload', localId: 'log-9' });
  });

  it('echoes no local_id when none, an empty one or a non-string one was sent', () => {
    expect(errorOf({ type: 'NOPE' }).localId).toBeUndefined();
    expect(errorOf({ type: 'NOPE', local_id: '' }).localId).toBeUndefined();
    expect(errorOf({ type: 'NOPE', local_id: 12 }).localId).toBeUndefined();
  });

  it.each(['line\nbreak', 'tab\there', 'nul\u0000', 'del\u007f'])('refuses control characters in local_id (%j)', (localId) => {
    const result = errorOf({ type: 'CHAT', payload: 'x', local_id: localId });
    expect(result.code).toBe('invalid_payload');
    expect(result.message).toBe('local_id must not contain control characters');
  });

  it('refuses control characters in stream_id', () => {
    const result = errorOf({ type: 'CHAT_STREAM', payload: 'x', stream_id: 's\n1' });
    expect(result.code).toBe('invalid_payload');
    expect(result.message).toBe('stream_id must not contain control characters');
  });
});

describe('decodeFrame: valid frames', () => {
  it('parses CHAT with its envelope fields', () => {
    expect(frameOf({ type: 'CHAT', payload: 'hello', local_id: 'l-1', target_id: 10, conversation_id: 4, stream_id: 's-1' })).toEqual({
      type: 'CHAT',
      payload: 'hello',
      local_id: 'l-1',
      target_id: 10,
      conversation_id: 4,
      stream_id: 's-1',
    });
  });

  it('parses an empty CHAT payload', () => {
    expect(frameOf({ type: 'CHAT', payload: '' })).toEqual({ type: 'CHAT', payload: '' });
  });

  it('parses CHAT_STREAM with its stream_id', () => {
    expect(frameOf({ type: 'CHAT_STREAM', payload: 'chu', stream_id: 's-1' })).toEqual({ type: 'CHAT_STREAM', payload: 'chu', stream_id: 's-1' });
  });

  it('parses CHAT_STREAM_END, defaulting a missing payload to ""', () => {
    expect(frameOf({ type: 'CHAT_STREAM_END', stream_id: 's-1' })).toEqual({ type: 'CHAT_STREAM_END', payload: '', stream_id: 's-1' });
    expect(frameOf({ type: 'CHAT_STREAM_END', stream_id: 's-1', payload: '' })).toEqual({ type: 'CHAT_STREAM_END', payload: '', stream_id: 's-1' });
  });

  it.each(LogLevels)('parses SYSTEM_LOG with level %s', (level) => {
    expect(frameOf({ type: 'SYSTEM_LOG', payload: { level, content: 'disk at 80%' } })).toEqual({
      type: 'SYSTEM_LOG',
      payload: { level, content: 'disk at 80%' },
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['WEATHER_UPDATE', { location: 'Oslo', temperature_c: -3, conditions: 'snow' }],
    [
      'CODE_REVIEW',
      {
        verdict: 'comment',
        content: '1 finding',
        findings: [{ file: 'a.ts', line: 3, severity: 'warning', rule: 'no-console', message: 'console.log left in' }],
      },
    ],
    [
      'SECURITY_ALERT',
      { severity: 'high', content: '1 secret', findings: [{ kind: 'secret', severity: 'high', rule: 'aws-access-key', file: '.env', line: 1 }] },
    ],
  ])('parses %s with its object payload or a text payload', (type, payload) => {
    expect(frameOf({ type, payload })).toEqual({ type, payload });
    expect(frameOf({ type, payload: 'sunny' })).toEqual({ type, payload: 'sunny' });
  });

  it('parses AUTH_RESPONSE', () => {
    expect(frameOf({ type: 'AUTH_RESPONSE', payload: { action_id: 'act-1', approved: false } })).toEqual({
      type: 'AUTH_RESPONSE',
      payload: { action_id: 'act-1', approved: false },
    });
  });

  it('drops the id, sender fields and timestamp a client sent: they are the hub’s', () => {
    const frame = frameOf({
      id: 999,
      type: 'CHAT',
      payload: 'hi',
      sender_id: 1,
      sender_name: 'admin',
      sender_role: 'ADMIN',
      timestamp: '2000-01-01T00:00:00Z',
      local_id: 'l-5',
    });
    expect(frame).toEqual({ type: 'CHAT', payload: 'hi', local_id: 'l-5' });
    for (const key of ['id', 'sender_id', 'sender_name', 'sender_role', 'timestamp']) expect(frame).not.toHaveProperty(key);
  });

  it('accepts multi-byte UTF-8 text', () => {
    expect(frameOf({ type: 'CHAT', payload: 'grüße 你好 🚀' })).toMatchObject({ payload: 'grüße 你好 🚀' });
  });
});

describe('TokenBucket', () => {
  function clock(start = 1_000) {
    let t = start;
    return { now: () => t, advance: (ms: number) => (t += ms), set: (ms: number) => (t = ms) };
  }

  it('allows a burst, then refuses', () => {
    const c = clock();
    const bucket = new TokenBucket(10, 3, c.now);
    expect(bucket.available).toBe(3);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true]);
    expect(bucket.take()).toBe(false);
    expect(bucket.take()).toBe(false);
    expect(bucket.available).toBe(0);
  });

  it('refills at the rate with the injected clock', () => {
    const c = clock();
    const bucket = new TokenBucket(10, 3, c.now); // one token per 100 ms
    for (let i = 0; i < 3; i++) bucket.take();
    c.advance(99);
    expect(bucket.take()).toBe(false);
    c.advance(1);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    c.advance(250);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });

  it('accumulates fractions of a token across takes', () => {
    const c = clock();
    const bucket = new TokenBucket(1, 1, c.now);
    expect(bucket.take()).toBe(true);
    for (let i = 0; i < 3; i++) {
      c.advance(250);
      expect(bucket.take()).toBe(false);
    }
    c.advance(250);
    expect(bucket.take()).toBe(true);
  });

  it('never holds more than the burst, however long it was idle', () => {
    const c = clock();
    const bucket = new TokenBucket(100, 5, c.now);
    c.advance(24 * 60 * 60 * 1000);
    expect(bucket.take()).toBe(true);
    expect(bucket.available).toBe(4);
    let taken = 1;
    while (bucket.take()) taken++;
    expect(taken).toBe(5);
  });

  it('adds nothing when the clock goes backwards', () => {
    const c = clock(10_000);
    const bucket = new TokenBucket(10, 2, c.now);
    bucket.take();
    bucket.take();
    c.set(5_000);
    expect(bucket.take()).toBe(false);
    c.set(10_000);
    expect(bucket.take()).toBe(false);
    c.set(10_100);
    expect(bucket.take()).toBe(true);
  });
});
