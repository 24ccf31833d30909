// The frames the hub builds (protocol/frames.ts) against the schemas that declare what it sends
// (protocol/serverFrames.ts): every built frame is one the typed client reads, and the envelope keeps
// its key order (JSON key order is observable by clients that print or hash frames).
import { describe, expect, it } from 'vitest';
import { ackFrame, errorFrame, monitorFrame, presenceFrame, toMessageFrame, type FrameSource } from '../../../src/protocol/frames.js';
import { messageFrame, serverFrame, ServerFrameTypes } from '../../../src/protocol/serverFrames.js';

const stored: FrameSource = {
  id: 42,
  local_id: 'l-1',
  conversation_id: 7,
  type: 'CHAT',
  sender_id: 3,
  sender_name: 'alice',
  sender_role: 'MEMBER',
  target_id: 5,
  payload: 'hello',
  created_at: '2026-11-21T10:00:00.123Z',
  stream_id: 's-1',
};

describe('frames the hub builds', () => {
  it('a stored message keeps the envelope key order and reads as a CHAT', () => {
    const frame = toMessageFrame(stored);
    expect(Object.keys(frame)).toEqual([
      'type',
      'sender_id',
      'sender_name',
      'sender_role',
      'payload',
      'timestamp',
      'id',
      'local_id',
      'conversation_id',
      'target_id',
      'stream_id',
    ]);
    expect(messageFrame.parse(frame)).toEqual(frame);
    expect(serverFrame.parse(JSON.parse(JSON.stringify(frame)))).toEqual(frame);
  });

  it('a relayed chunk has no id and leaves out what is null', () => {
    const frame = toMessageFrame({ ...stored, id: undefined, type: 'CHAT_STREAM', local_id: null, conversation_id: null, target_id: null });
    expect(Object.keys(frame)).toEqual(['type', 'sender_id', 'sender_name', 'sender_role', 'payload', 'timestamp', 'stream_id']);
    expect(serverFrame.parse(frame).type).toBe('CHAT_STREAM');
  });

  it('a stored telemetry payload carries the row for older dashboards and still reads with the agents’ schema', () => {
    const frame = toMessageFrame({ ...stored, type: 'SYSTEM_LOG', target_id: null, stream_id: null, payload: { level: 'INFO', content: 'up' } });
    expect(frame.payload).toEqual({ level: 'INFO', content: 'up', id: 42, agent_id: 'alice', timestamp: stored.created_at });
    const read = serverFrame.parse(frame);
    expect(read.type === 'SYSTEM_LOG' && read.payload).toEqual({ level: 'INFO', content: 'up' });
  });

  it('ACK, ERROR, PRESENCE and monitor copies read with the client schemas', () => {
    const read = (text: string) => serverFrame.parse(JSON.parse(text));
    expect(read(ackFrame('l-1', 42, stored.created_at))).toEqual({ type: 'ACK', local_id: 'l-1', id: 42, timestamp: stored.created_at });
    expect(ackFrame('l-1', 42, stored.created_at)).toBe('{"type":"ACK","local_id":"l-1","id":42,"timestamp":"2026-11-21T10:00:00.123Z"}');
    expect(errorFrame('invalid_frame', 'type is required')).toBe('{"type":"ERROR","payload":{"code":"invalid_frame","message":"type is required"}}');
    expect(read(errorFrame('rate_limited', 'slow down', 'l-2'))).toEqual({
      type: 'ERROR',
      payload: { code: 'rate_limited', message: 'slow down' },
      local_id: 'l-2',
    });
    const presence = { user_id: 5, username: 'bot', status: 'ONLINE', online: true, last_seen_at: null, last_report: 'websocket_connected' };
    expect(read(presenceFrame(presence, stored.created_at))).toMatchObject({ type: 'PRESENCE', sender_id: 5, sender_name: 'bot', payload: presence });
    const monitor = read(monitorFrame({ ...stored, sender_role: 'BUTLER', local_id: null }));
    expect(monitor).toMatchObject({
      type: 'BUTLER_AGENT_MESSAGE',
      id: 42,
      conversation_id: 7,
      target_id: 5,
      payload: { agent_id: 5, type: 'CHAT', payload: 'hello', stream_id: 's-1' },
    });
  });

  it('lists every type the hub sends once, in the order of the outbound frame counters', () => {
    expect(ServerFrameTypes).toEqual([
      'CHAT',
      'CHAT_STREAM',
      'CHAT_STREAM_END',
      'SYSTEM_LOG',
      'WEATHER_UPDATE',
      'CODE_REVIEW',
      'SECURITY_ALERT',
      'AUTH_REQUEST',
      'AUTH_STATUS_UPDATE',
      'ACK',
      'ERROR',
      'PRESENCE',
      'BUTLER_AGENT_MESSAGE',
      'PRESENCE_BATCH',
    ]);
  });
});
