// The client's open streams: a chunk opens one (per sender and stream id), its CHAT or its end closes
// it, and a dropped connection reports each still open once.
import { describe, expect, it } from 'vitest';
import { IncomingStreams } from '../../../src/client/incomingStreams.js';
import { Listeners, type InterruptedStream } from '../../../src/client/listeners.js';
import type { ServerFrame } from '../../../src/protocol/serverFrames.js';

const frame = (type: 'CHAT' | 'CHAT_STREAM' | 'CHAT_STREAM_END', sender_id: number, stream_id: string): ServerFrame => ({
  type,
  sender_id,
  sender_name: `user-${sender_id}`,
  sender_role: 'AGENT',
  stream_id,
  conversation_id: 7,
  payload: 'text',
  timestamp: '2026-01-01T00:00:00.000Z',
});

function streams(maxOpen?: number) {
  const listeners = new Listeners();
  const interrupted: InterruptedStream[] = [];
  listeners.on('streamInterrupted', (s) => void interrupted.push(s));
  return { tracker: new IncomingStreams(listeners, maxOpen), interrupted };
}

describe('streams cut by a dropped connection', () => {
  it('reports the streams still open, once each, and not those ended by their CHAT or their end', () => {
    const { tracker, interrupted } = streams();
    for (const f of [
      frame('CHAT_STREAM', 3, 'a'),
      frame('CHAT_STREAM', 3, 'a'),
      frame('CHAT_STREAM', 4, 'a'),
      frame('CHAT_STREAM', 3, 'b'),
      frame('CHAT', 3, 'b'),
      frame('CHAT_STREAM', 5, 'c'),
      frame('CHAT_STREAM_END', 5, 'c'),
    ])
      tracker.observe(f);
    tracker.dropped();
    expect(interrupted).toEqual([
      { stream_id: 'a', sender_id: 3, conversation_id: 7 },
      { stream_id: 'a', sender_id: 4, conversation_id: 7 },
    ]);
    tracker.dropped();
    expect(interrupted).toHaveLength(2);
  });

  it('holds at most maxOpen streams: a sender that never ends its streams cannot grow it', () => {
    const { tracker, interrupted } = streams(2);
    for (const id of ['a', 'b', 'c']) tracker.observe(frame('CHAT_STREAM', 3, id));
    tracker.dropped();
    expect(interrupted.map((s) => s.stream_id)).toEqual(['b', 'c']);
  });
});
