// The MCP inbox on its own, against a recording router: it binds before the message is posted and
// unbinds once, matches only the peer's answer after the caller's message in the same thread (frames
// heard before the message was stored included), passes stream chunks on, collects the peer's
// authorization requests, and fails the wait when the router closes it.
import { describe, expect, it } from 'vitest';
import type { RouterEvent } from '../../../src/actors/router.js';
import type { Endpoint } from '../../../src/delivery/types.js';
import { openInbox } from '../../../src/mcp/inbox.js';
import type { MessageFrame } from '../../../src/protocol/frames.js';

const ME = { id: 5, username: 'me', role: 'MEMBER' as const };
const PEER = 9;

function router() {
  const events: RouterEvent[] = [];
  return {
    events,
    send: (e: RouterEvent) => void events.push(e),
    get endpoint(): Endpoint {
      const bind = events.find((e) => e.type === 'BIND');
      if (!bind || bind.type !== 'BIND') throw new Error('not bound');
      return bind.endpoint;
    },
  };
}

const frame = (f: Partial<MessageFrame>): MessageFrame =>
  ({ type: 'CHAT', sender_id: PEER, sender_name: 'peer', sender_role: 'AGENT', target_id: ME.id, payload: 'x', timestamp: 't', ...f }) as MessageFrame;

const never = new AbortController().signal;

describe('the MCP inbox', () => {
  it('binds an in-hub endpoint at once and unbinds it once', () => {
    const r = router();
    const inbox = openInbox(r, ME);
    expect(r.events.map((e) => e.type)).toEqual(['BIND']);
    expect(r.endpoint).toMatchObject({ inHub: true, user: ME });
    expect(r.endpoint.key).toBeLessThan(-(2 ** 39));
    inbox.close();
    inbox.close();
    expect(r.events.map((e) => e.type)).toEqual(['BIND', 'UNBIND']);
  });

  it("answers with the peer's stored CHAT after the caller's message, heard even before expect()", async () => {
    const r = router();
    const inbox = openInbox(r, ME);
    const deliver = (f: MessageFrame) => r.endpoint.deliver('', f.id, f);
    deliver(frame({ id: 10, payload: 'an older answer' }));
    deliver(frame({ id: 12, payload: 'the answer', conversation_id: 3 }));
    inbox.expect({ peerId: PEER, afterId: 11, conversationId: 3 });
    expect(await inbox.answer(1000, never)).toEqual({ id: 12, text: 'the answer', conversation_id: 3, timestamp: 't' });
  });

  it('ignores other senders, other threads, other targets, and passes stream chunks on', async () => {
    const r = router();
    const inbox = openInbox(r, ME);
    const chunks: string[] = [];
    inbox.onChunk((c) => chunks.push(c));
    inbox.expect({ peerId: PEER, afterId: 1, conversationId: 3 });
    const deliver = (f: MessageFrame) => r.endpoint.deliver('', f.id, f);
    const waiting = inbox.answer(5000, never);
    deliver(frame({ id: 2, sender_id: 99, payload: 'someone else' }));
    deliver(frame({ id: 3, conversation_id: 4, payload: 'another thread' }));
    deliver(frame({ id: 4, target_id: 77, payload: 'to someone else' }));
    deliver(frame({ type: 'CHAT_STREAM', payload: 'par', conversation_id: 3 }));
    deliver(frame({ type: 'CHAT_STREAM', payload: 'tial', conversation_id: 3 }));
    deliver(frame({ type: 'AUTH_REQUEST', id: 5, payload: { action_id: 'a1' }, conversation_id: 3 }));
    deliver(frame({ id: 6, payload: 'partial', conversation_id: 3 }));
    expect((await waiting)?.text).toBe('partial');
    expect(chunks).toEqual(['par', 'tial']);
    expect(inbox.authRequests.map((f) => (f.payload as { action_id: string }).action_id)).toEqual(['a1']);
  });

  it('gives up after the wait or when the signal aborts, with no answer', async () => {
    const inbox = openInbox(router(), ME);
    inbox.expect({ peerId: PEER, afterId: 1, conversationId: null });
    expect(await inbox.answer(5, never)).toBeUndefined();
    const aborted = new AbortController();
    const waiting = inbox.answer(60_000, aborted.signal);
    aborted.abort();
    expect(await waiting).toBeUndefined();
  });

  it('fails the wait with the reason when the router closes the endpoint', async () => {
    const r = router();
    const inbox = openInbox(r, ME);
    inbox.expect({ peerId: PEER, afterId: 1, conversationId: null });
    const waiting = inbox.answer(60_000, never);
    r.endpoint.close(4001, 'the user was deleted');
    await expect(waiting).rejects.toThrow('the wait ended: the user was deleted');
    expect(r.events.map((e) => e.type)).toEqual(['BIND', 'UNBIND']);
  });
});
