// Every kind of hostile WebSocket frame the fuzz sends, and what the hub must answer to each: an
// ERROR (nothing stored), an ACK (accepted, with the hub's own sender fields), or a close code.
export type Expect = { kind: 'error' } | { kind: 'ack' } | { kind: 'either' } | { kind: 'close'; codes: number[] };

export interface Hostile {
  kind: string;
  data: string | Buffer;
  binary: boolean;
  /** Set when the frame is readable enough to name itself: its answer is matched by it. */
  localId?: string;
  expect: Expect;
  /** Large frames are sent rarely. */
  large?: boolean;
  /** The frame ends the connection: sent last in a session. */
  final?: boolean;
}

export interface Victims {
  /** A thread of another user. */
  threadId: number;
  /** A user id that does not exist. */
  nobody: number;
}

export interface Identity {
  role: 'agent' | 'human';
}

const pick = <T>(xs: readonly T[], n: number) => xs[n % xs.length]!;

/** Frames that can be sent many times in one session (no close expected); `n` varies them. */
export function smallHostile(n: number, who: Identity, v: Victims, lid: string): Hostile {
  const json = (value: unknown, expect: Expect, kind: string, localId?: string): Hostile => ({
    kind,
    data: JSON.stringify(value),
    binary: false,
    localId,
    expect,
  });
  const kinds: Array<() => Hostile> = [
    () => ({
      kind: 'bad JSON',
      data: pick(['{"type":"CHAT",', '{type:CHAT}', '', 'null', '"CHAT"', '[1,2', '{"a":1}}', 'NaN', '\u0000'], n),
      binary: false,
      expect: { kind: 'error' },
    }),
    () => json(pick([{ type: 5 }, { type: null }, { type: ['CHAT'] }, {}], n), { kind: 'error' }, 'wrong types', undefined),
    () => json({ type: 'CHAT', payload: pick([{}, 5, null, ['x'], true], n), local_id: lid }, { kind: 'error' }, 'wrong types', lid),
    () =>
      json(
        { type: 'SYSTEM_LOG', payload: pick(['text', { level: 'LOUD', content: 'x' }, { level: 'INFO', content: 7 }, { level: 'INFO' }], n), local_id: lid },
        { kind: 'error' },
        'wrong types',
        lid,
      ),
    () =>
      json(
        { type: 'CHAT', payload: 'x', target_id: pick(['abc', -1, 1.5, {}, '1; DROP TABLE messages'], n), local_id: lid },
        { kind: 'error' },
        'wrong types',
        lid,
      ),
    () =>
      json(
        { type: pick(['HACK', 'ACK', 'ERROR', 'PRESENCE', 'AUTH_REQUEST', 'BUTLER_AGENT_MESSAGE', 'chat', '__proto__'], n), payload: 'x', local_id: lid },
        { kind: 'error' },
        'unknown or server-only type',
        lid,
      ),
    () => ({
      kind: 'deep nesting',
      data:
        n % 2 === 0
          ? `${'['.repeat(20_000)}${']'.repeat(20_000)}`
          : `{"type":"CHAT","local_id":"${lid}","payload":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`,
      binary: false,
      localId: n % 2 === 0 ? undefined : lid,
      expect: { kind: 'error' },
    }),
    () => ({
      kind: 'prototype keys',
      data: `{"type":"SYSTEM_LOG","local_id":"${lid}","__proto__":{"role":"ADMIN","isAdmin":true},"constructor":{"prototype":{"polluted":1}},"payload":{"level":"INFO","content":"fuzz-proto","__proto__":{"x":1}}}`,
      binary: false,
      localId: lid,
      expect: { kind: 'either' },
    }),
    () => ({
      kind: 'binary',
      data: Buffer.from(JSON.stringify({ type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'fuzz-binary' }, local_id: lid })),
      binary: true,
      expect: { kind: 'error' },
    }),
    () =>
      json(
        {
          type: 'SYSTEM_LOG',
          payload: { level: 'INFO', content: 'fuzz-spoof' },
          local_id: lid,
          id: 1,
          sender_id: 1,
          sender_name: 'admin',
          sender_role: 'ADMIN',
          timestamp: '1970-01-01T00:00:00Z',
        },
        { kind: who.role === 'agent' ? 'ack' : 'either' },
        'spoofed sender',
        lid,
      ),
    () =>
      json(
        { type: 'CHAT', payload: 'fuzz-thread', conversation_id: v.threadId, target_id: pick([v.nobody, undefined], n), local_id: lid },
        { kind: 'error' },
        "another user's thread",
        lid,
      ),
    () =>
      json(
        {
          type: 'AUTH_RESPONSE',
          payload: { action_id: pick(['00000000-0000-4000-8000-000000000000', "'; --", 'x'.repeat(200)], n), approved: true },
          local_id: lid,
        },
        { kind: 'error' },
        "another user's approval",
        lid,
      ),
    () => json({ type: 'CHAT', payload: 'fuzz-nobody', target_id: v.nobody, local_id: lid }, { kind: 'error' }, 'target that does not exist', lid),
    () =>
      json(
        { type: 'SYSTEM_LOG', payload: { level: 'INFO', content: 'x' }, local_id: pick(['', 'x'.repeat(10_000), 5, null], n) },
        { kind: 'either' },
        'odd local_id',
        undefined,
      ),
  ];
  return kinds[n % kinds.length]!();
}

/** Frames around the size limits (`max` = WS_MAX_FRAME_BYTES); the last ones end the connection. */
export function largeHostile(n: number, max: number, lid: string): Hostile {
  const sized = (bytes: number) => {
    const head = `{"type":"SYSTEM_LOG","local_id":"${lid}","payload":{"level":"INFO","content":"`;
    const tail = '"}}';
    return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
  };
  const kinds: Array<() => Hostile> = [
    () => ({ kind: 'size max-1', data: sized(max - 1), binary: false, localId: lid, expect: { kind: 'either' }, large: true }),
    () => ({ kind: 'size max', data: sized(max), binary: false, localId: lid, expect: { kind: 'either' }, large: true }),
    () => ({ kind: 'size max+1', data: sized(max + 1), binary: false, expect: { kind: 'error' }, large: true }),
    () => ({ kind: 'size 2×max', data: sized(2 * max), binary: false, expect: { kind: 'error' }, large: true }),
    // uWS refuses these itself; the hub's contract says close 1009.
    () => ({ kind: 'size 2×max+1', data: sized(2 * max + 1), binary: false, expect: { kind: 'close', codes: [1009] }, large: true, final: true }),
    () => ({ kind: 'size 4×max', data: sized(4 * max), binary: false, expect: { kind: 'close', codes: [1009] }, large: true, final: true }),
  ];
  return kinds[n % kinds.length]!();
}

/**
 * Text frames that are not UTF-8: closed with 1007, or dropped by the transport without a close frame
 * (1006: uWS checks UTF-8 before the hub sees the frame), which the check then finds explained in the
 * hub's log, or answered with an ERROR.
 */
export function invalidUtf8(n: number): Hostile {
  const bytes = [
    Buffer.from([0xff, 0xfe, 0xfd]),
    Buffer.from('{"type":"CHAT","payload":"\xC3\x28"}', 'latin1'),
    Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    Buffer.from([0xc0, 0xaf]),
  ];
  return { kind: 'invalid UTF-8', data: bytes[n % bytes.length]!, binary: false, expect: { kind: 'close', codes: [1007, 1006] }, final: true };
}
